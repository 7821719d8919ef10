#if canImport(Glibc)
import Glibc
#endif
import Foundation
import TestSupport

/// A raw client of the daemon's Unix socket, independent of the code under test: writes bytes
/// as they are (malformed lines included) and reads response lines with a timeout.
final class ControlSocket {
    private let fd: Int32
    private var buffer: [UInt8] = []

    init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ProcessRunner.Failure(description: "socket(): errno \(errno)") }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: addr.sun_path) else {
            Glibc.close(fd)
            throw ProcessRunner.Failure(description: "socket path too long: \(path)")
        }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
            raw[bytes.count] = 0
        }
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard rc == 0 else {
            let e = errno
            Glibc.close(fd)
            throw ProcessRunner.Failure(description: "connect \(path): \(String(cString: strerror(e)))")
        }
    }

    deinit { Glibc.close(fd) }

    /// Writes all of `bytes`; false once the peer has closed the connection.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n < 0 { if errno == EINTR { continue }; return false }
            offset += n
        }
        return true
    }

    @discardableResult
    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// The next line, or nil at end of stream, on a read error (e.g. a reset) or after `timeout`.
    func readLine(timeout: Double = 10) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let nl = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[..<nl], as: UTF8.self)
                buffer.removeSubrange(...nl)
                return line
            }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return nil }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, Int32(left * 1000) + 1)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { return nil }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return nil }
            buffer.append(contentsOf: chunk[..<n])
        }
    }

    /// Sends one line and returns the parsed response object.
    func request(_ line: String, timeout: Double = 10) -> [String: Any]? {
        guard send(line + "\n"), let reply = readLine(timeout: timeout) else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(reply.utf8))) as? [String: Any]
    }
}
