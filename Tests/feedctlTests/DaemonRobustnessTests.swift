#if canImport(Glibc)
import Glibc
#endif
import Foundation
import TestSupport
import XCTest

/// The control socket under abuse (issue 14): running out of descriptors, more clients than
/// allowed, idle clients, subscribers that stop reading, a daemon that never answers, and a
/// socket directory someone else controls. Each case ends with the daemon answering `status`
/// (bounded by the CLI's own timeout, never a timing assertion).
final class DaemonRobustnessTests: DaemonTestCase {
    private func threads(_ process: Process) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)
        let line = try XCTUnwrap(status.split(separator: "\n").first { $0.hasPrefix("Threads:") })
        return try XCTUnwrap(Int(line.split(separator: "\t").last ?? ""))
    }

    /// Before: after one EMFILE the accept loop ended, and `status` hung for good.
    func testAcceptingSurvivesRunningOutOfDescriptors() throws {
        try startDaemon(openFiles: 48)
        var held: [ControlSocket] = []
        for _ in 0..<60 { if let c = try? ControlSocket(path: world.socket) { held.append(c) } }
        XCTAssertTrue(waitForLog("out of file descriptors"), "the daemon never ran out: the test proves nothing")
        held.removeAll()   // every client leaves
        let status = try feedctl("status", "--json", timeout: 20)
        XCTAssertEqual(status.status, 0, status.stderr)
        XCTAssertTrue(status.stdout.contains("\"status\""), status.stdout)
    }

    /// At most `maxClients` (64) at once, the next one told why; idle clients cost no thread each.
    func testClientCapAndNoThreadPerClient() throws {
        let daemon = try startDaemon()
        XCTAssertEqual(try feedctl("status").status, 0)
        let before = try threads(daemon)
        var idle: [ControlSocket] = []
        for _ in 0..<64 { idle.append(try ControlSocket(path: world.socket)) }
        // Each has been accepted once it is answered.
        for client in idle.prefix(1) { XCTAssertNotNil(client.request("{\"cmd\":\"ping\"}")) }
        let extra = try ControlSocket(path: world.socket)
        let refusal = try XCTUnwrap(extra.readLine(timeout: 10), "the 65th client got no answer")
        XCTAssertTrue(refusal.contains("too many clients (64 connected)"), refusal)
        XCTAssertNil(extra.readLine(timeout: 5), "and was closed")
        XCTAssertLessThan(try threads(daemon) - before, 4, "64 idle clients made threads")

        idle.removeLast()
        XCTAssertTrue(eventually(timeout: 10) { (try? self.feedctl("status").status) == 0 }, "a freed slot is usable again")
    }

    /// Subscribers that never read, and a client that floods requests without reading the
    /// replies: the daemon keeps answering others (before, each blocked write held one of the two
    /// shared workers and `status` failed), and drops the client once 1 MiB waits for it.
    func testClientsThatStopReadingAreDroppedNotWaitedFor() throws {
        try startDaemon()
        let stuck = try subscribersThatNeverRead(20)
        let flood = try ControlSocket(path: world.socket)
        // Malformed lines are answered at once with ~90 bytes each: 40,000 are over three times the
        // 1 MiB a client may leave unread (plus what the kernel buffers on both sides).
        var sent = 0
        let lines = Array(repeating: "x\n", count: 1000).joined()
        while sent < 40, flood.send(lines) { sent += 1 }
        let status = try feedctl("status", timeout: 20)
        XCTAssertEqual(status.status, 0, status.stderr)
        XCTAssertTrue(waitForLog("stopped reading", timeout: 30), "the flooding client was not dropped (\(sent * 1000) lines sent)")
        let again = try feedctl("status", timeout: 20)
        XCTAssertEqual(again.status, 0, again.stderr)
        withExtendedLifetime(stuck) {}
    }

    /// A "daemon" that accepts and never answers: the CLI gives up after its read timeout and
    /// says which timeout it was (before: "Resource temporarily unavailable").
    func testASilentDaemonIsAReadTimeout() throws {
        let dir = world.directory.appendingPathComponent("silent")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let path = dir.appendingPathComponent("player.sock").path
        let fd = try Self.listen(at: path, backlog: 4)
        defer { close(fd); unlink(path) }
        let run = try feedctl(["status", "--socket", path], environment: ["FEEDCTL_TIMEOUT": "1"], timeout: 20)
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(run.stderr, "feedctl: the feedctl daemon did not answer within 1 s (read timeout)\n")
    }

    /// A daemon that stopped accepting (its backlog full): the CLI gives up after its connect
    /// timeout and says which timeout it was, instead of waiting for ever.
    func testABacklogThatNeverDrainsIsAConnectTimeout() throws {
        let dir = world.directory.appendingPathComponent("stalled")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let path = dir.appendingPathComponent("player.sock").path
        let listener = try Self.listen(at: path, backlog: 0)
        defer { close(listener); unlink(path) }
        // Fill the backlog: non-blocking connects succeed until the kernel queue is full.
        var queued: [Int32] = []
        defer { queued.forEach { close($0) } }
        while queued.count < 64 {
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard Self.connect(fd, to: path) == 0 else { close(fd); break }
            queued.append(fd)
        }
        XCTAssertLessThan(queued.count, 64, "the backlog never filled: the test proves nothing")
        let run = try feedctl(["status", "--socket", path], timeout: 30)
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(run.stderr, "feedctl: the feedctl daemon did not accept the connection within 5 s (connect timeout)\n")
    }

    /// The daemon's sockets (the listener and each client's) are close-on-exec: a program it
    /// starts (yt-dlp, a crash reporter) must not inherit them and hold the socket's path.
    func testTheDaemonsSocketsAreCloseOnExec() throws {
        // Started with nothing inherited (Foundation's Process leaves some of this test
        // process's descriptors open in the child), so every socket it holds is its own.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", "import os, sys; os.closerange(3, 65536); os.execv(sys.argv[1], sys.argv[1:])",
                             try Self.feedctlBinary().path, "daemon", "--socket", world.socket, "--db", world.db, "--sync-every", "0"]
        process.environment = world.environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        daemon = process
        XCTAssertTrue(eventually(timeout: 10) { (try? ControlSocket(path: self.world.socket)) != nil }, "the daemon did not come up")
        let client = try ControlSocket(path: world.socket)
        XCTAssertNotNil(client.request("{\"cmd\":\"ping\"}"), "the client was accepted")
        let pid = process.processIdentifier
        var checked = 0
        for fd in try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd") {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(fd)"),
                  target.hasPrefix("socket:[") else { continue }
            let info = try String(contentsOfFile: "/proc/\(pid)/fdinfo/\(fd)", encoding: .utf8)
            let line = try XCTUnwrap(info.split(separator: "\n").first { $0.hasPrefix("flags:") })
            let flags = try XCTUnwrap(Int(line.split(separator: "\t").last ?? "", radix: 8))
            XCTAssertNotEqual(flags & Int(O_CLOEXEC), 0, "the daemon's socket fd \(fd) would be inherited by the programs it starts")
            checked += 1
        }
        XCTAssertGreaterThanOrEqual(checked, 2, "the listener and the client's connection were not both found")
        withExtendedLifetime(client) {}
    }

    /// Subscribers that stop reading while events flood (volume changes, each sent to every
    /// subscriber): the daemon drops them once 1 MiB waits for each, and answers everyone else
    /// throughout (before, each blocked event write held one of the two shared workers).
    func testAnEventFloodToStuckSubscribersDoesNotFreezeTheDaemon() throws {
        try startDaemon()
        let stuck = try subscribersThatNeverRead(20)
        // The driver reads its replies; each volume change is one event to each subscriber.
        let driver = try ControlSocket(path: world.socket)
        var changes = 0
        for round in 0..<40 {
            let batch = (0..<200).map { i in "{\"cmd\":\"volume\",\"value\":\((round * 200 + i) % 2 == 0 ? 0.4 : 0.6)}\n" }
            guard driver.send(batch.joined()) else { break }
            for _ in 0..<200 { if driver.readLine(timeout: 20) != nil { changes += 1 } }
        }
        XCTAssertEqual(changes, 8000, "the driver's requests were not all answered")
        XCTAssertTrue(waitForLog("stopped reading", timeout: 30), "no stuck subscriber was dropped after \(changes) events")
        let status = try feedctl("status", timeout: 20)
        XCTAssertEqual(status.status, 0, status.stderr)
        withExtendedLifetime(stuck) {}
    }

    /// `count` clients subscribed to events that never read them (kept open by the caller).
    private func subscribersThatNeverRead(_ count: Int) throws -> [ControlSocket] {
        try (0..<count).map { _ in
            let subscriber = try ControlSocket(path: world.socket)
            XCTAssertTrue(subscriber.send("{\"cmd\":\"subscribe\"}\n"))
            return subscriber
        }
    }

    /// A listener that never accepts (a stand-in for a daemon that stopped answering).
    private static func listen(at path: String, backlog: Int32) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var addr = address(path)
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, Glibc.listen(fd, backlog) == 0 else { throw ProcessRunner.Failure(description: "cannot listen at \(path)") }
        return fd
    }

    private static func connect(_ fd: Int32, to path: String) -> Int32 {
        var addr = address(path)
        return withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }

    private static func address(_ path: String) -> sockaddr_un {
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in path.utf8.prefix(raw.count - 1).enumerated() { raw[i] = b }
        }
        return addr
    }

    /// The CLI refuses a socket directory that is not the user's own and private, and a socket
    /// that is not the user's (as tmux does); before, it talked to whoever listened there.
    func testAnotherUsersSocketDirectoryIsRefused() throws {
        try startDaemon()
        let dir = (world.socket as NSString).deletingLastPathComponent
        defer { chmod(dir, 0o700); chown(dir, getuid(), getgid()); chown(world.socket, getuid(), getgid()) }

        chmod(dir, 0o777)
        let open = try feedctl("status")
        XCTAssertEqual(open.status, 1)
        XCTAssertEqual(open.stderr, "feedctl: refusing to use the control socket in \(dir): other users can reach it (mode 777); it must be 0700\n")

        chmod(dir, 0o700)
        chown(world.socket, 65534, 65534)
        let foreignSocket = try feedctl("status")
        XCTAssertEqual(foreignSocket.stderr, "feedctl: refusing to use \(world.socket): it belongs to uid 65534, not to you (uid \(getuid()))\n")

        chown(dir, 65534, 65534)
        let foreignDir = try feedctl("pause")
        XCTAssertEqual(foreignDir.status, 1)
        XCTAssertEqual(foreignDir.stderr, "feedctl: refusing to use the control socket in \(dir): it belongs to uid 65534, not to you (uid \(getuid())); remove it or set XDG_RUNTIME_DIR\n")
    }
}
