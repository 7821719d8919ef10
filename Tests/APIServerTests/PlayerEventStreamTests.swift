#if canImport(Glibc)
import Glibc
#endif
import APIServer
import Foundation
import TestSupport
import XCTest

/// `/api/player/events` against the real server and a real daemon (audit item 10): the streams
/// share one connection to the daemon, whose 64 client slots each stream used to take (then
/// `/api/player` answered 422, stream 65 an empty 200, and `feedctl status` exited 0 printing
/// nothing); streams are bounded with a clear answer; and when the daemon's slots are all taken
/// by others, every client is told so.
final class PlayerEventStreamTests: XCTestCase {
    /// The private world of one test: PulseAudio (null sink), the server, and a daemon on its socket.
    final class World {
        let directory: URL
        let pulse: PulseServer
        let socket: String
        let harness: APIHarness
        var daemon: ProcessRunner.Running?

        init(streams: PlayerStreamLimits = PlayerStreamLimits()) async throws {
            // Short: a Unix socket path must fit in 108 bytes.
            directory = URL(fileURLWithPath: "/tmp/fde-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            pulse = try PulseServer(directory: directory)
            socket = pulse.runtimeDirectory + "/feedctl/player.sock"
            var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, open: true, allowPrivateFeeds: true,
                                                    version: "test", socketPath: socket)
            configuration.playerStreams = streams
            // These tests open 100 streams and more from 127.0.0.1, past the connections one
            // client address may hold (`ConnectionLimits.maxPerAddress`, ConnectionLimitTests).
            configuration.connections.maxPerAddress = 1_000
            harness = try await APIHarness(configuration: configuration)
        }

        var environment: [String: String] {
            var env = pulse.environment
            env["XDG_CONFIG_HOME"] = directory.appendingPathComponent("config").path
            return env
        }

        func startDaemon() throws {
            let daemon = try ProcessRunner.start(try PlayerEventStreamTests.binary("feedctl"),
                                                 ["daemon", "--socket", socket, "--db", harness.database.dbSetting, "--sync-every", "0"],
                                                 environment: environment)
            self.daemon = daemon
            XCTAssertTrue(eventually(timeout: 15) { FileManager.default.fileExists(atPath: self.socket) }, daemon.stderrSoFar)
        }

        /// `feedctl ARGS --socket S`, as a person at the server's terminal runs it.
        func feedctl(_ arguments: String...) throws -> ProcessRunner.Result {
            try ProcessRunner.capture(try PlayerEventStreamTests.binary("feedctl"), arguments + ["--socket", socket],
                                      environment: environment, timeout: 30)
        }

        /// Unix sockets the daemon holds open (its listener, PulseAudio's and its clients').
        func daemonSockets() -> Int {
            guard let pid = daemon?.process.processIdentifier,
                  let fds = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd") else { return -1 }
            return fds.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)"))?.hasPrefix("socket:") == true }.count
        }

        func stop() {
            daemon?.signal(SIGTERM)
            _ = try? daemon?.wait(timeout: 10)
            pulse.stop()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    static func binary(_ name: String) throws -> String {
        try XCTUnwrap(PackagePaths.builtProgram(name)?.path, "\(name) not built")
    }

    func testAHundredEventStreamsShareOneDaemonConnection() async throws {
        let world = try await World()
        defer { world.stop() }
        try world.startDaemon()
        let h = world.harness
        XCTAssertEqual(try world.feedctl("status").status, 0)
        let before = world.daemonSockets()

        var streams: [EventStream] = []
        defer { streams.forEach { $0.close() } }
        for _ in 0..<100 { streams.append(try EventStream(port: h.port, path: "/api/player/events")) }
        let deadline = Date().addingTimeInterval(30)   // for all of them: a failing run ends too
        for (index, stream) in streams.enumerated() {
            let head = stream.read(until: "event: status", timeout: max(0.1, deadline.timeIntervalSinceNow))
            XCTAssertTrue(head.hasPrefix("HTTP/1.1 200"), "stream \(index + 1): \(head)")
            XCTAssertTrue(head.contains("event: status\ndata: {"), "stream \(index + 1) got no status: \(head)")
        }
        XCTAssertLessThanOrEqual(world.daemonSockets() - before, 1, "the streams hold one connection to the daemon between them")

        // Everyone else is still answered: the API, and the CLI.
        let player = try await h.call("GET", "/api/player")
        XCTAssertEqual(player.status, 200, player.text)
        XCTAssertEqual(try player.object()["status"] as? String, "stopped")
        let status = try world.feedctl("status", "--json")
        XCTAssertEqual(status.status, 0, status.stderr)
        XCTAssertEqual((try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])?["status"] as? String, "stopped",
                       status.stdout)

        // What the daemon says reaches every stream.
        try ToneMedia.encode(ToneMedia.sine(440, seconds: 30), ["-c:a", "libmp3lame"], to: h.feeds.root.appendingPathComponent("tone.mp3"))
        let playing = try await h.object("POST", "/api/player/play", body: #"{"url": "\#(h.feeds.url("/tone.mp3"))"}"#)
        XCTAssertEqual(playing["status"] as? String, "playing")
        let heard = Date().addingTimeInterval(30)
        for (index, stream) in streams.enumerated() {
            XCTAssertTrue(stream.read(until: #""status":"playing""#, timeout: max(0.1, heard.timeIntervalSinceNow)).contains(#""status":"playing""#),
                          "stream \(index + 1) did not hear the play")
        }

        // The streams gone, so is their connection (the daemon now holds PulseAudio's too).
        let during = world.daemonSockets()
        streams.forEach { $0.close() }
        streams = []
        XCTAssertTrue(eventually(timeout: 10) { world.daemonSockets() == during - 1 }, "\(world.daemonSockets()) sockets, \(during) with the streams")
        // And a new stream connects again.
        let again = try EventStream(port: h.port, path: "/api/player/events")
        defer { again.close() }
        XCTAssertTrue(again.read(until: "event: status", timeout: 15).contains(#""status":"playing""#))
        // The daemon gone, the stream says so and ends.
        XCTAssertEqual(try world.feedctl("quit").status, 0)
        let last = again.read(until: "event: error", timeout: 15)
        XCTAssertTrue(last.contains("event: error\ndata: \(APIErrorBody.json("the feedctl daemon went away"))"), last)
    }

    /// With no daemon, a stream is refused at once (503, saying how to start it), not a 200
    /// carrying an error event.
    func testWithNoDaemonAStreamIsRefused() async throws {
        let world = try await World()
        defer { world.stop() }
        let stream = try EventStream(port: world.harness.port, path: "/api/player/events")
        defer { stream.close() }
        let answer = stream.read(until: "}", timeout: 15)
        XCTAssertTrue(answer.hasPrefix("HTTP/1.1 503"), answer)
        XCTAssertTrue(answer.contains(APIErrorBody.json("the player is not running (nothing is playing); POST /api/player/play starts it")), answer)
    }

    /// Past a bound, a stream is refused with a line saying which (429 for one user's, 503 for
    /// the server's), never an empty 200; the streams within it go on.
    func testStreamsPastTheirBoundAreRefusedClearly() async throws {
        for (limits, status, detail) in [(PlayerStreamLimits(perUser: 2, total: 100), 429, "you have 2 player event streams open, the most one user may; close one first"),
                                          (PlayerStreamLimits(perUser: 100, total: 2), 503, "the server holds 2 player event streams, its most; try again when some have closed")] {
            let world = try await World(streams: limits)
            defer { world.stop() }
            try world.startDaemon()
            // Answering, not only listening: on a loaded machine the daemon took over 15 s to
            // answer its first subscription once, and the kept streams, still waiting, were not
            // counted yet when the third came.
            XCTAssertTrue(eventually(timeout: 60) { (try? world.feedctl("status"))?.status == 0 })
            let kept = try (0..<2).map { _ in try EventStream(port: world.harness.port, path: "/api/player/events") }
            defer { kept.forEach { $0.close() } }
            for stream in kept { XCTAssertTrue(stream.read(until: "event: status", timeout: 15).contains("event: status")) }
            // Read as a stream (a served one would not end), bounded.
            let refused = try EventStream(port: world.harness.port, path: "/api/player/events")
            defer { refused.close() }
            let answer = refused.read(until: "}", timeout: 15)
            XCTAssertTrue(answer.hasPrefix("HTTP/1.1 \(status)"), answer)
            XCTAssertTrue(answer.contains(APIErrorBody.json(detail)), answer)
            let player = try await world.harness.call("GET", "/api/player")
            XCTAssertEqual(player.status, 200, player.text)
        }
    }

    /// When others hold every one of the daemon's client slots, each client says so: the API
    /// with 503 and the daemon's line (it was 422, and an empty 200 for a stream), the CLI with
    /// exit status 1 and the same line (it exited 0 printing nothing).
    func testADaemonWithEverySlotTakenIsAClearErrorForEveryClient() async throws {
        let world = try await World()
        defer { world.stop() }
        try world.startDaemon()
        var taken: [Int32] = []
        defer { taken.forEach { close($0) } }
        for _ in 0..<64 { taken.append(try Self.connectUnix(world.socket)) }
        let busy = "the feedctl daemon is busy: too many clients (64 connected); try again when some have finished"
        XCTAssertTrue(eventually(timeout: 10) { (try? world.feedctl("status"))?.stderr == "feedctl: \(busy)\n" })

        let status = try world.feedctl("status")
        XCTAssertEqual(status.status, 1)
        XCTAssertEqual(status.stdout, "")
        XCTAssertEqual(status.stderr, "feedctl: \(busy)\n")
        let queue = try world.feedctl("queue", "list")
        XCTAssertEqual(queue.status, 1)
        XCTAssertEqual(queue.stderr, "feedctl: \(busy)\n")

        for path in ["/api/player", "/api/player/queue"] {
            let reply = try await world.harness.call("GET", path)
            XCTAssertEqual(reply.status, 503, "\(path): \(reply.text)")
            XCTAssertEqual(try reply.object()["detail"] as? String, busy, path)
        }
        let stream = try EventStream(port: world.harness.port, path: "/api/player/events")
        defer { stream.close() }
        let answer = stream.read(until: "}", timeout: 15)
        XCTAssertTrue(answer.hasPrefix("HTTP/1.1 503"), answer)
        XCTAssertTrue(answer.contains(APIErrorBody.json(busy)), answer)
        let pause = try await world.harness.call("POST", "/api/player/pause")
        XCTAssertEqual(pause.status, 503, pause.text)

        // A slot freed, all is answered again.
        close(taken.removeLast())
        XCTAssertTrue(eventually(timeout: 10) { (try? world.feedctl("status"))?.status == 0 })
        // The daemon gives a slot back when it has seen its client go (the CLI's just now), so
        // the server may meet "busy" once more before it does: answered again within a while.
        var player = try await world.harness.call("GET", "/api/player")
        for _ in 0..<50 where player.status == 503 {
            try await Task.sleep(for: .milliseconds(200))
            player = try await world.harness.call("GET", "/api/player")
        }
        XCTAssertEqual(player.status, 200, player.text)
    }

    /// A connected Unix socket that sends nothing (a client holding a slot).
    static func connectUnix(_ path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in path.utf8.enumerated() { raw[i] = b }
        }
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard rc == 0 else { close(fd); throw ProcessRunner.Failure(description: "connect \(path): errno \(errno)") }
        return fd
    }
}

/// One HTTP/1.1 request on its own TCP connection, read as it arrives: an event stream, as a
/// browser's EventSource holds it.
final class EventStream {
    private let fd: Int32
    private var closed = false
    private var received = ""

    /// `headers` go with the request (a token, a cookie, `Last-Event-ID`).
    init(port: Int, path: String, headers: [String: String] = [:]) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else { Glibc.close(fd); throw ProcessRunner.Failure(description: "connect 127.0.0.1:\(port): errno \(errno)") }
        let extra = headers.map { "\($0.key): \($0.value)\r\n" }.joined()
        let request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/event-stream\r\n\(extra)\r\n"
        _ = request.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
    }

    /// What arrived so far once it contains `text` (or `timeout` passed, or the stream ended).
    func read(until text: String, timeout: Double) -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while !received.contains(text) {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { break }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, Int32(left * 1000) + 1) > 0 else { break }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { break }
            received += String(decoding: chunk[..<n], as: UTF8.self)
        }
        return received
    }

    func close() {
        if !closed { Glibc.close(fd) }
        closed = true
    }
}

extension APIHarness {
    var port: Int { Int(base.split(separator: ":").last ?? "") ?? 0 }
}

/// `{"detail": …}` as the server writes it.
enum APIErrorBody {
    static func json(_ detail: String) -> String {
        String(decoding: (try? JSONEncoder().encode(["detail": detail])) ?? Data(), as: UTF8.self).replacingOccurrences(of: "\\/", with: "/")
    }
}
