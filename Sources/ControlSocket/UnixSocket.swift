#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization

/// Errors of the control socket, each a line a person can act on.
public struct SocketError: Error, CustomStringConvertible {
    public let description: String
    /// errno of the failing call, when there was one.
    public var code: Int32 = 0

    public static func posix(_ call: String, _ path: String) -> SocketError {
        let e = errno
        return SocketError(description: "\(call) \(path): \(String(cString: strerror(e)))", code: e)
    }

    public init(description: String, code: Int32 = 0) {
        self.description = description; self.code = code
    }
}

/// A connected stream socket carrying one JSON object per line. Reads are from one thread;
/// writes may come from any thread (serialized by a lock), so events and responses never interleave.
public final class LineConnection: @unchecked Sendable {
    private let fd: Int32
    private var buffer: [UInt8] = []
    private let writeLock = NSLock()
    private var closed = false
    /// Longest line accepted; a peer sending more is cut off (a malformed or hostile client).
    public static let maxLine = 1 << 20

    public init(fd: Int32) { self.fd = fd }
    deinit { close() }

    public func close() {
        writeLock.lock(); defer { writeLock.unlock() }
        if !closed { closed = true; Glibc.close(fd) }
    }

    /// Ends the connection both ways without closing the descriptor, so that a read blocked on
    /// another thread returns (end of stream): `close` would not wake it, and its number could
    /// be reused under it. The reader's owner closes it after.
    public func shutdown() {
        writeLock.lock(); defer { writeLock.unlock() }
        if !closed { _ = Glibc.shutdown(fd, Int32(SHUT_RDWR)) }
    }

    /// How long a connect may wait for the daemon to accept (its backlog full).
    public static let connectTimeout = 5.0

    /// Connects to the daemon at `path`. A daemon whose backlog is full (it stopped accepting)
    /// makes a Unix connect wait; it is tried without blocking until `connectTimeout`.
    public static func connect(to path: String) throws(SocketError) -> LineConnection {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw .posix("socket", path) }
        var addr = try unixAddress(path)
        let deadline = Date().addingTimeInterval(connectTimeout)
        while true {
            let rc = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            if rc == 0 { break }
            if errno == EINTR { continue }
            guard errno == EAGAIN, Date() < deadline else {
                let err = errno == EAGAIN
                    ? SocketError(description: "the feedctl daemon did not accept the connection within \(Int(connectTimeout)) s (connect timeout)", code: ETIMEDOUT)
                    : SocketError.posix("connect", path)
                Glibc.close(fd)
                throw err
            }
            usleep(20_000)
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return LineConnection(fd: fd)
    }

    /// Reads one line (without the newline); nil at end of stream.
    public func readLine() throws(SocketError) -> [UInt8]? {
        while true {
            if let nl = buffer.firstIndex(of: 10) {
                let line = Array(buffer[..<nl])
                buffer.removeSubrange(...nl)
                return line
            }
            guard buffer.count <= Self.maxLine else { throw SocketError(description: "request line longer than 1 MiB") }
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK {
                    throw SocketError(description: "the feedctl daemon did not answer within \(Self.format(readTimeout)) s (read timeout)", code: ETIMEDOUT)
                }
                throw .posix("read", "control socket")
            }
            if n == 0 {
                if buffer.isEmpty { return nil }
                let line = buffer; buffer = []; return line
            }
            buffer.append(contentsOf: chunk[..<n])
        }
    }

    private var readTimeout = 0.0

    private static func format(_ seconds: Double) -> String {
        seconds.rounded() == seconds ? String(Int(seconds)) : String(seconds)
    }

    /// Sets a receive timeout so a silent peer cannot block a client forever (0: none).
    public func setReadTimeout(seconds: Double) {
        readTimeout = seconds
        var tv = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - Double(Int(seconds))) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Writes `line` plus a newline; false when the peer has gone.
    @discardableResult
    public func writeLine(_ line: [UInt8]) -> Bool {
        writeLock.lock(); defer { writeLock.unlock() }
        guard !closed else { return false }
        var data = line
        data.append(10)
        var offset = 0
        while offset < data.count {
            let n = data.withUnsafeBytes { send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n < 0 { if errno == EINTR { continue }; return false }
            offset += n
        }
        return true
    }
}

/// A listening Unix socket private to its user: directory 0700, socket 0600; a stale socket
/// (nobody answering) is removed, a live one means another daemon runs and we refuse.
public final class UnixListener: @unchecked Sendable {
    public let path: String
    private let fd: Int32
    private let closed = Mutex(false)

    public init(path: String) throws(SocketError) {
        self.path = path
        let dir = (path as NSString).deletingLastPathComponent
        try Self.preparePrivateDirectory(dir)
        if access(path, F_OK) == 0 {
            if let probe = try? LineConnection.connect(to: path) {
                probe.close()
                throw SocketError(description: "another feedctl daemon is already running on \(path)")
            }
            unlink(path)   // stale: left by a daemon that died
        }
        // Bound under a name of its own and linked to `path` once it listens: bound at `path`, the
        // path named a socket that refused connections until listen(2), and a client that saw it
        // appear (the server starting a daemon, a script) could be refused. link(2) also refuses
        // a path another daemon took meanwhile.
        _ = try unixAddress(path)
        let bound = path + "~"
        unlink(bound)   // left by a daemon that died between its bind and its link
        // Close-on-exec: a process the daemon starts (yt-dlp, a crash reporter) must not inherit it
        // and hold the path. Non-blocking: the server's one thread accepts until there is no more.
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw .posix("socket", path) }
        var addr = try unixAddress(bound)
        let old = umask(0o177)   // the socket is born 0600: no window where others could connect
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        umask(old)
        guard rc == 0 else { let e = SocketError.posix("bind", bound); Glibc.close(fd); throw e }
        chmod(bound, 0o600)
        guard listen(fd, 64) == 0 else { let e = SocketError.posix("listen", bound); unlink(bound); Glibc.close(fd); throw e }
        guard link(bound, path) == 0 else {
            let e = errno == EEXIST ? SocketError(description: "another feedctl daemon is already running on \(path)") : SocketError.posix("link", path)
            unlink(bound)
            Glibc.close(fd)
            throw e
        }
        unlink(bound)
        self.fd = fd
    }

    /// What one `accept` gave.
    enum Accepted {
        case client(Int32)
        /// Nobody is waiting.
        case none
        /// The process is out of descriptors (EMFILE/ENFILE): the connection waits in the backlog.
        case outOfDescriptors
        /// The listener was closed.
        case closed
        case failed(Int32)
    }

    var descriptor: Int32 { fd }

    /// Takes one waiting connection, without blocking; the client's descriptor is made
    /// close-on-exec and non-blocking (accept4, which would do both at once, is a GNU name the
    /// Swift Glibc module does not import).
    func acceptOne() -> Accepted {
        while true {
            let client = accept(fd, nil, nil)
            if client >= 0 {
                _ = fcntl(client, F_SETFD, FD_CLOEXEC)
                _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
                return .client(client)
            }
            switch errno {
            case EINTR, ECONNABORTED: continue
            case EAGAIN, EWOULDBLOCK: return .none
            case EMFILE, ENFILE, ENOBUFS, ENOMEM: return .outOfDescriptors
            case EBADF, EINVAL: return .closed
            default: return .failed(errno)
            }
        }
    }

    /// Stops listening and removes the socket; only the first call acts (a second close could hit
    /// a reused descriptor, a second unlink a newer daemon's socket).
    public func close() {
        guard closed.withLock({ was in defer { was = true }; return !was }) else { return }
        shutdown(fd, Int32(SHUT_RDWR))
        Glibc.close(fd)
        unlink(path)
    }

    public static func preparePrivateDirectory(_ dir: String) throws(SocketError) {
        var st = stat()
        if stat(dir, &st) != 0 {
            guard mkdir(dir, 0o700) == 0 || errno == EEXIST else { throw .posix("mkdir", dir) }
            guard stat(dir, &st) == 0 else { throw .posix("stat", dir) }
        }
        guard st.st_uid == getuid() else {
            throw SocketError(description: "\(dir) belongs to another user; refusing to put the control socket there")
        }
        if st.st_mode & 0o077 != 0 { chmod(dir, 0o700) }
    }
}

private func unixAddress(_ path: String) throws(SocketError) -> sockaddr_un {
    var addr = sockaddr_un()
    addr.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    let capacity = MemoryLayout.size(ofValue: addr.sun_path)
    guard bytes.count < capacity else {
        throw SocketError(description: "socket path too long (\(bytes.count) bytes, limit \(capacity - 1)): \(path)")
    }
    withUnsafeMutableBytes(of: &addr.sun_path) { raw in
        for (i, b) in bytes.enumerated() { raw[i] = b }
        raw[bytes.count] = 0
    }
    return addr
}
