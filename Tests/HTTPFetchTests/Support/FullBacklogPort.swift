import Glibc

/// A listening port that never completes a TCP handshake: its accept queue (backlog 0) is
/// filled by connections nobody accepts, and Linux then drops further SYNs, so a client's
/// connect times out — deterministically, with no outside network.
final class FullBacklogPort {
    let port: Int
    private var sockets: [Int32] = []

    init?() {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { return nil }
        sockets.append(listener)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && listen(listener, 0) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        guard bound else { return nil }
        port = Int(UInt16(bigEndian: address.sin_port))
        // Non-blocking connects: the first ones fill the queue, the rest wait for a SYN-ACK.
        for _ in 0..<3 {
            let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard client >= 0 else { continue }
            sockets.append(client)
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, length) }
            }
        }
    }

    deinit { sockets.forEach { close($0) } }
}
