#if canImport(Glibc)
import Glibc
#endif
import ControlProtocol
import Foundation

/// The CLI's side of the control socket: one request, one response; starts the daemon on demand.
public struct ControlClient {
    public let socketPath: String
    public let connection: LineConnection

    /// Connects to the daemon; when none runs and `autostart` is set, starts one
    /// (`feedctl daemon --detach` with the same socket, library and media directory; nil: the
    /// daemon's own default) and waits for it.
    public static func connect(socketPath: String, database: String?, mediaDirectory: String? = nil, autostart: Bool) throws -> ControlClient {
        try SocketTrust.check(socketPath)
        let first: SocketError
        do {
            return ControlClient(socketPath: socketPath, connection: try LineConnection.connect(to: socketPath))
        } catch {
            first = error
        }
        guard first.code == ENOENT || first.code == ECONNREFUSED else { throw first }
        // Refused: a daemon that died (kill -9, a crash) left its socket file. It is removed
        // here so that no later command is misled by it (the next daemon would remove it too).
        let stale = first.code == ECONNREFUSED && removeStaleSocket(socketPath)
        guard autostart else { throw DaemonNotRunning(socketPath: socketPath, removedStaleSocket: stale) }
        try Daemonizer.startDetached(socketPath: socketPath, database: database,
                                     extra: mediaDirectory.map { ["--media-dir", $0] } ?? [])
        return ControlClient(socketPath: socketPath, connection: try LineConnection.connect(to: socketPath))
    }

    /// Removes a socket file nobody answers on, if it is ours (a socket owned by this user): a
    /// second refused connect after a moment tells a dead daemon from one between its bind and
    /// listen.
    private static func removeStaleSocket(_ path: String) -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFSOCK, info.st_uid == getuid() else { return false }
        usleep(50_000)
        if let probe = try? LineConnection.connect(to: path) { probe.close(); return false }
        return unlink(path) == 0
    }

    /// How long the CLI waits for the daemon's answer: `$FEEDCTL_TIMEOUT` seconds, else 30.
    public static var replyTimeout: Double {
        ProcessInfo.processInfo.environment["FEEDCTL_TIMEOUT"].flatMap(Double.init).flatMap { $0 > 0 && $0 <= 3600 ? $0 : nil } ?? 30
    }

    /// Sends a command and waits (bounded) for the daemon's reply; a refusal (the daemon's
    /// client slots all taken included) is thrown as its `PlayerFailure`, never a reply to read.
    public func perform(_ command: PlayerCommand, timeout: Double = ControlClient.replyTimeout) throws -> PlayerReply {
        connection.setReadTimeout(seconds: timeout)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        // A daemon whose client slots are all taken answers before reading and closes: its
        // refusal is the line read below even when this write finds the connection gone.
        let sent = connection.writeLine(Array(try encoder.encode(ControlRequest(command))))
        guard let line = try connection.readLine() else {
            throw SocketError(description: sent ? "the feedctl daemon closed the connection without answering"
                                                : "the feedctl daemon closed the connection")
        }
        return try JSONDecoder().decode(PlayerReply.self, from: Data(line)).checked()
    }

    /// Reads the next event line of a subscription; nil when the daemon goes away.
    public func nextEvent() throws -> PlayerEvent? {
        connection.setReadTimeout(seconds: 0)
        guard let line = try connection.readLine() else { return nil }
        return try JSONDecoder().decode(PlayerEvent.self, from: Data(line))
    }

    public init(socketPath: String, connection: LineConnection) {
        self.socketPath = socketPath; self.connection = connection
    }
}

/// No daemon answers on the socket: none was started, or one died (its socket is then removed).
/// The message points at `feedctl play`, which starts one (`feedctl daemon` would hold the
/// terminal).
public struct DaemonNotRunning: Error, CustomStringConvertible {
    public let socketPath: String
    public let removedStaleSocket: Bool

    public var description: String {
        let why = removedStaleSocket ? "removed the socket \(socketPath) a stopped one left" : "no socket at \(socketPath)"
        return "nothing is playing: the player is not running (\(why)); `feedctl play` starts it"
    }
}

/// Starts `feedctl daemon` in the background, in its own session, logging to a file.
public enum Daemonizer {
    /// `feedctl-daemon`, installed beside `feedctl` (both are products of this package).
    public static func daemonExecutable() throws -> String {
        let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let path = (me as NSString).deletingLastPathComponent + "/feedctl-daemon"
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw SocketError(description: "the player daemon is not installed: no executable \(path) (swift build builds it)")
        }
        return path
    }

    public static func logPath(forSocket socketPath: String) -> String {
        (socketPath as NSString).deletingLastPathComponent + "/daemon.log"
    }

    public static func startDetached(socketPath: String, database: String?, extra: [String] = []) throws {
        try UnixListener.preparePrivateDirectory((socketPath as NSString).deletingLastPathComponent)
        let executable = try daemonExecutable()
        var args = [executable, "--socket", socketPath]
        if let database { args += ["--db", database] }
        args += extra
        let log = logPath(forSocket: socketPath)

        closeOnExec()
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        posix_spawnattr_setflags(&attr, 0x80)   // POSIX_SPAWN_SETSID (a _GNU_SOURCE macro Swift does not import): survive the terminal closing

        var cArgs = args.map { strdup($0) } + [nil]
        defer { cArgs.forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, executable, &actions, &attr, &cArgs, environ)
        guard rc == 0 else {
            throw SocketError(description: "cannot start the feedctl daemon: \(String(cString: strerror(rc)))")
        }
        // Wait until it answers (it may be slow to start on a cold disk), or until it died.
        for _ in 0..<100 {
            if let probe = try? LineConnection.connect(to: socketPath) { probe.close(); return }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                let tail = (try? String(contentsOfFile: log, encoding: .utf8))?
                    .split(separator: "\n").last.map(String.init) ?? "see \(log)"
                throw SocketError(description: "the feedctl daemon failed to start: \(tail)")
            }
            usleep(50_000)
        }
        throw SocketError(description: "the feedctl daemon did not start within 5 s (see \(log))")
    }

    /// Marks every descriptor above stderr close-on-exec, so the daemon inherits none of ours: a
    /// parent waiting for our pipes or sockets to close (a script, a test harness) would otherwise
    /// wait for the daemon's whole lifetime. (posix_spawn_file_actions_addclosefrom_np is a GNU
    /// extension Swift does not import.)
    private static func closeOnExec() {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return }
        for fd in names.compactMap({ Int32($0) }) where fd > 2 {
            let flags = fcntl(fd, F_GETFD)
            if flags >= 0 { _ = fcntl(fd, F_SETFD, flags | FD_CLOEXEC) }
        }
    }
}
