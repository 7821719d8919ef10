import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP connection to 127.0.0.1 made with the socket calls themselves: a client that behaves
/// badly on purpose (sends a head a byte at a time, never sends anything, holds connections),
/// which URLSession and curl will not do. `from` binds the client's end to another loopback
/// address (127.0.0.2, …): another client, as the server counts them.
final class RawConnection {
    private let descriptor: Int32

    init(port: Int, from source: String? = nil) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure("socket: errno \(errno)") }
        if let source {
            var local = Self.address(source, port: 0)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else { close(descriptor); throw Failure("bind \(source): errno \(errno)") }
        }
        var remote = Self.address("127.0.0.1", port: port)
        let connected = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { close(descriptor); throw Failure("connect: errno \(errno)") }
    }

    deinit { close(descriptor) }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    private static func address(_ host: String, port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, host, &address.sin_addr)
        return address
    }

    /// Sends `text`; false when the server has closed the connection (never SIGPIPE).
    @discardableResult
    func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }

    /// Whether the server closed the connection within `seconds`: a read that ends (0) or fails
    /// (reset). What arrives before (an answer) is kept in `received`.
    func closed(within seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, 100)
            if ready < 0 && errno != EINTR { return true }
            guard ready > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 65_536)
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { return true }
            received.append(contentsOf: buffer[0..<count])
        }
        return false
    }

    /// Bytes the server sent.
    private(set) var received = Data()

    /// Reads until `count` bytes arrived (true), the server closed, or `seconds` passed; then
    /// reads no more, as a listener that stopped reading (the kernel's buffers fill).
    func receive(atLeast count: Int, within seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while received.count < count, Date() < deadline {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 65_536)
            let got = recv(descriptor, &buffer, buffer.count, 0)
            if got <= 0 { return false }
            received.append(contentsOf: buffer[0..<got])
        }
        return received.count >= count
    }

    /// One request and its whole answer (the server closes after it: `Connection: close`).
    func exchange(_ request: String, within seconds: Double = 20) -> String? {
        guard send(request), closed(within: seconds) else { return nil }
        return String(decoding: received, as: UTF8.self)
    }
}
