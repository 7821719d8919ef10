import FeedIngest
import Foundation
import XCTest

/// A downloaded item plays from its file: downloaded over HTTP, then the server is stopped and
/// the daemon (on a private headless PulseAudio) plays it anyway.
final class DownloadPlaybackTests: XCTestCase {
    private var dir: URL!
    private var environment: [String: String] = [:]
    private var daemon: Process?

    override func setUpWithError() throws {
        for tool in ["pulseaudio", "pactl", "ffmpeg"] where !FileManager.default.isExecutableFile(atPath: "/usr/bin/\(tool)") {
            throw XCTSkip("\(tool) is not installed")
        }
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("feedctl-dlplay-\(UUID().uuidString)")
        let run = dir.appendingPathComponent("run").path
        environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = run
        environment["XDG_CONFIG_HOME"] = dir.appendingPathComponent("config").path
        environment["PULSE_RUNTIME_PATH"] = run + "/pulse"
        environment["PULSE_STATE_PATH"] = dir.appendingPathComponent("pulse-state").path
        environment["PULSE_SERVER"] = "unix:\(run)/pulse/native"
        for path in [run + "/pulse", environment["XDG_CONFIG_HOME"]!, environment["PULSE_STATE_PATH"]!] {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: run)
        _ = try exec("/usr/bin/pulseaudio", ["-D", "-n", "--exit-idle-time=-1", "--system=false",
                                             "--log-target=file:\(dir.path)/pulse.log",
                                             "--load=module-null-sink sink_name=nullsink rate=48000",
                                             "--load=module-native-protocol-unix auth-anonymous=1 socket=\(run)/pulse/native",
                                             "--load=module-always-sink"])
        for _ in 0..<100 where try exec("/usr/bin/pactl", ["info"]).status != 0 { Thread.sleep(forTimeInterval: 0.1) }
        XCTAssertEqual(try exec("/usr/bin/pactl", ["set-default-sink", "nullsink"]).status, 0)
    }

    override func tearDownWithError() throws {
        guard dir != nil else { return }  // skipped before setting up
        if let daemon {
            _ = try? exec(try ParseCommandTests.feedctl().path, ["quit", "--socket", dir.appendingPathComponent("sock").path], timeout: 10)
            for _ in 0..<100 where daemon.isRunning { Thread.sleep(forTimeInterval: 0.05) }
            if daemon.isRunning { kill(daemon.processIdentifier, SIGKILL) }
        }
        _ = try? exec("/usr/bin/pactl", ["exit"])
        try? FileManager.default.removeItem(at: dir)
    }

    /// Runs a tool to its end, killed after `timeout` seconds. Output goes through files, not
    /// pipes, so that a daemon it leaves behind (pulseaudio -D) can't keep a read from ending.
    @discardableResult
    private func exec(_ tool: String, _ arguments: [String], timeout: Double = 60) throws -> (status: Int32, stdout: String, stderr: String) {
        let (process, outPath, errPath) = try spawn(tool, arguments)
        defer { try? FileManager.default.removeItem(at: outPath); try? FileManager.default.removeItem(at: errPath) }
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            throw XCTSkip("\(tool) \(arguments.joined(separator: " ")) did not finish within \(Int(timeout)) s")
        }
        return (process.terminationStatus, String(decoding: try Data(contentsOf: outPath), as: UTF8.self),
                String(decoding: try Data(contentsOf: errPath), as: UTF8.self))
    }

    /// Starts a tool with stdout/stderr in files under `dir`; stdin is /dev/null.
    private func spawn(_ tool: String, _ arguments: [String]) throws -> (Process, URL, URL) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.environment = environment
        let outPath = dir.appendingPathComponent("out-\(UUID().uuidString)"), errPath = dir.appendingPathComponent("err-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: outPath.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath.path, contents: nil)
        let out = try FileHandle(forWritingTo: outPath), err = try FileHandle(forWritingTo: errPath)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = out
        process.standardError = err
        try process.run()
        try out.close()
        try err.close()
        return (process, outPath, errPath)
    }

    func testDownloadedItemPlaysWithTheServerGone() throws {
        let server = try DownloadTestServer()
        let tone = server.root.appendingPathComponent("tone.mp3").path
        XCTAssertEqual(try exec("/usr/bin/ffmpeg", ["-nostdin", "-loglevel", "error", "-f", "lavfi", "-i",
                                                    "sine=frequency=440:sample_rate=44100:duration=20",
                                                    "-c:a", "libmp3lame", "-fflags", "+bitexact", tone]).status, 0)
        let db = dir.appendingPathComponent("lib/library.sqlite").path
        let library = try Library(path: db)
        let show = try library.addChannel(platform: .podcast, sourceURL: "", feedURL: server.url("/feed.xml"), name: "Tones", now: 1).id
        _ = try library.ingest(items: [Item(id: "t", title: "Tone", published: 1,
                                            enclosure: Enclosure(url: server.url("/tone.mp3"), type: "audio/mpeg"))],
                               channelID: show, now: 1)
        let id = try XCTUnwrap(library.feed(now: 1).first?.id)

        let feedctl = try ParseCommandTests.feedctl().path
        let download = try exec(feedctl, ["download", "--db", db, String(id)])
        XCTAssertEqual(download.status, 0, download.stderr)
        server.stop()  // from now on the enclosure URL refuses connections

        let socket = dir.appendingPathComponent("sock").path
        // In the foreground, as our child: `--detach` would hand it a descriptor of ours.
        daemon = try spawn(feedctl, ["daemon", "--db", db, "--socket", socket, "--sync-every", "0"]).0
        for _ in 0..<100 where !FileManager.default.fileExists(atPath: socket) { Thread.sleep(forTimeInterval: 0.05) }
        let play = try exec(feedctl, ["play", "--db", db, "--socket", socket, String(id)])
        XCTAssertEqual(play.status, 0, play.stderr)

        // Wait (bounded) until the daemon reports progress into the file.
        var status: [String: Any] = [:]
        for _ in 0..<100 {
            let out = try exec(feedctl, ["status", "--json", "--socket", socket]).stdout
            status = (try? JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any]) ?? [:]
            if let position = status["position"] as? Double, position > 0 { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        XCTAssertEqual(status["status"] as? String, "playing", "\(status)")
        XCTAssertEqual(status["item_id"] as? Int, Int(id))
        XCTAssertTrue(status["error"] is NSNull, "\(status)")
        XCTAssertGreaterThan(status["position"] as? Double ?? 0, 0)
    }
}
