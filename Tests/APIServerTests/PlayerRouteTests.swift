import APIServer
import Foundation
import TestSupport
import XCTest

/// `/api/player` against a real daemon playing into a private PulseAudio (null sink): the
/// commands go over its control socket, the events come back as server-sent events.
final class PlayerRouteTests: XCTestCase {
    static let statusKeys: Set<String> = ["status", "position", "duration", "title", "artist", "item_id", "url", "volume", "rate",
                                          "chapter", "error", "sleep_at"]

    private func binary(_ name: String) throws -> String {
        try XCTUnwrap(PackagePaths.builtProgram(name)?.path, "\(name) not built")
    }

    /// Seek and volume bodies are made valid at the edge (`SeekTarget`, `PlayerVolume`), each
    /// bound included: a value inside goes on to the daemon (503 here: none runs), one outside is
    /// refused with the rule's own line (422) before the daemon is asked.
    func testSeekAndVolumeBoundsAtTheEdge() async throws {
        let directory = URL(fileURLWithPath: "/tmp/fdb-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: directory) }
        let h = try await APIHarness(configuration: ServerConfiguration(host: "127.0.0.1", port: 0, open: true, allowPrivateFeeds: true,
                                                                         version: "test", socketPath: directory.path + "/player.sock"))
        let cases: [(String, String, Int, String?)] = [
            ("seek", #"{"position": 0}"#, 503, nil),
            ("seek", #"{"position": 1000000000}"#, 503, nil),
            ("seek", #"{"position": -0.001}"#, 422, "seek position must be between 0 and 1000000000 seconds"),
            ("seek", #"{"position": 1000000000.001}"#, 422, "seek position must be between 0 and 1000000000 seconds"),
            ("seek", #"{"offset": -1000000000}"#, 503, nil),
            ("seek", #"{"offset": 1000000000}"#, 503, nil),
            ("seek", #"{"offset": 1000000000.001}"#, 422, "seek offset must be at most 1000000000 seconds either way"),
            ("seek", #"{"offset": -1000000000.001}"#, 422, "seek offset must be at most 1000000000 seconds either way"),
            ("volume", #"{"volume": 0}"#, 503, nil),
            ("volume", #"{"volume": 1}"#, 503, nil),
            ("volume", #"{"volume": 1.0001}"#, 422, "volume must be between 0 and 1 (0–100 %)"),
            ("volume", #"{"volume": -0.0001}"#, 422, "volume must be between 0 and 1 (0–100 %)"),
        ]
        for (route, body, status, detail) in cases {
            let reply = try await h.call("POST", "/api/player/\(route)", body: body)
            XCTAssertEqual(reply.status, status, "\(route) \(body): \(reply.text)")
            if let detail { XCTAssertEqual(try reply.object()["detail"] as? String, detail, "\(route) \(body)") }
        }
    }

    func testThePlayerAsARemote() async throws {
        // Short: a Unix socket path must fit in 108 bytes.
        let directory = URL(fileURLWithPath: "/tmp/fdp-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let pulse = try PulseServer(directory: directory)
        defer { pulse.stop(); try? FileManager.default.removeItem(at: directory) }
        let socket = pulse.runtimeDirectory + "/feedctl/player.sock"

        let h = try await APIHarness(configuration: ServerConfiguration(host: "127.0.0.1", port: 0, open: true, allowPrivateFeeds: true,
                                                                         version: "test", socketPath: socket))
        // No daemon yet: the player routes say so (503), the rest of the API works.
        let absent = try await h.call("GET", "/api/player")
        XCTAssertEqual(absent.status, 503, absent.text)
        XCTAssertTrue((try absent.object()["detail"] as? String)?.contains("not running") == true, absent.text)

        try ToneMedia.encode(ToneMedia.sine(440, seconds: 30), ["-c:a", "libmp3lame"], to: h.feeds.root.appendingPathComponent("tone.mp3"))
        var env = pulse.environment
        env["XDG_CONFIG_HOME"] = directory.appendingPathComponent("config").path
        let daemon = try ProcessRunner.start(try binary("feedctl"), ["daemon", "--socket", socket, "--db", h.database.dbSetting, "--sync-every", "0"],
                                             environment: env)
        defer { daemon.signal(SIGTERM); _ = try? daemon.wait(timeout: 10) }
        XCTAssertTrue(eventually(timeout: 15) { FileManager.default.fileExists(atPath: socket) }, daemon.stderrSoFar)

        let stopped = try await h.object("GET", "/api/player")
        XCTAssertEqual(Set(stopped.keys), Self.statusKeys)
        XCTAssertEqual(stopped["status"] as? String, "stopped")

        // The event stream, read by curl as a browser's EventSource would.
        let events = try ProcessRunner.start("/usr/bin/curl", ["-sN", "--max-time", "60", h.base + "/api/player/events"])
        defer { events.signal(SIGTERM) }
        var eventsText = ""
        XCTAssertTrue(eventually(timeout: 10) {
            eventsText = (try? String(contentsOf: URL(fileURLWithPath: "/proc/\(events.process.processIdentifier)/fd/1"), encoding: .utf8)) ?? ""
            return eventsText.contains("event: status")
        }, "no first status event: \(eventsText)")

        let url = h.feeds.url("/tone.mp3")
        let playing = try await h.object("POST", "/api/player/play", body: #"{"url": "\#(url)"}"#)
        XCTAssertEqual(Set(playing.keys), Self.statusKeys)
        XCTAssertEqual(playing["status"] as? String, "playing")
        XCTAssertEqual(playing["url"] as? String, url)

        let paused = try await h.object("POST", "/api/player/pause")
        XCTAssertEqual(paused["status"] as? String, "paused")
        let sought = try await h.object("POST", "/api/player/seek", body: #"{"position": 12}"#)
        XCTAssertEqual(try XCTUnwrap(sought["position"] as? Double), 12, accuracy: 0.5)
        let louder = try await h.object("POST", "/api/player/volume", body: #"{"volume": 0.5}"#)
        XCTAssertEqual(louder["volume"] as? Double, 0.5)
        let faster = try await h.object("POST", "/api/player/speed", body: #"{"rate": 1.5}"#)
        XCTAssertEqual(faster["rate"] as? Double, 1.5)
        let resumed = try await h.object("POST", "/api/player/resume")
        XCTAssertEqual(resumed["status"] as? String, "playing")

        let queued = try await h.object("POST", "/api/player/queue", body: #"{"targets": ["\#(url)"]}"#)
        XCTAssertEqual(queued["total"] as? Int, 1)
        XCTAssertEqual((queued["items"] as? [[String: Any]])?.first?["target"] as? String, url)

        // A client names no files on the server's machine, and bad values are refused.
        let file = try await h.call("POST", "/api/player/play", body: #"{"target": "/etc/passwd"}"#)
        XCTAssertEqual(file.status, 422, file.text)
        let noTarget = try await h.call("POST", "/api/player/seek", body: "{}")
        XCTAssertEqual(noTarget.status, 422, noTarget.text)
        let tooFast = try await h.call("POST", "/api/player/speed", body: #"{"rate": 9}"#)
        XCTAssertEqual(tooFast.status, 422, tooFast.text)
        let noItem = try await h.call("POST", "/api/player/play", body: #"{"item_id": 999999}"#)
        XCTAssertEqual(noItem.status, 404, noItem.text)

        let stoppedAgain = try await h.object("POST", "/api/player/stop")
        XCTAssertEqual(stoppedAgain["status"] as? String, "stopped")
        // The daemon's refusals are answered by their kind (its reply's `code`), not their text:
        // a command the player's state does not allow is 409, media that cannot play 422.
        let nothing = try await h.call("POST", "/api/player/seek", body: #"{"position": 5}"#)
        XCTAssertEqual(nothing.status, 409, nothing.text)
        XCTAssertEqual(try nothing.object()["detail"] as? String, "nothing is playing")
        let missing = try await h.call("POST", "/api/player/play", body: #"{"url": "\#(h.feeds.url("/missing.mp3"))"}"#)
        XCTAssertEqual(missing.status, 422, missing.text)
        XCTAssertTrue((try missing.object()["detail"] as? String)?.contains("404") == true, missing.text)
        XCTAssertTrue(eventually(timeout: 10) {
            eventsText = (try? String(contentsOf: URL(fileURLWithPath: "/proc/\(events.process.processIdentifier)/fd/1"), encoding: .utf8)) ?? ""
            return eventsText.contains("\"status\":\"paused\"") && eventsText.contains("\"status\":\"stopped\"")
        }, "the events did not follow the player: \(eventsText)")
        for block in eventsText.components(separatedBy: "\n\n") where !block.isEmpty {
            let lines = block.split(separator: "\n")
            XCTAssertEqual(lines.count, 2, block)
            XCTAssertTrue(lines.first?.hasPrefix("event: ") == true, block)
            let data = try XCTUnwrap(lines.last?.dropFirst("data: ".count))
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any], block)
            XCTAssertEqual(Set(object.keys), Self.statusKeys)
        }
    }

    /// Issue 26, item 9: a media URL is read once (trimmed, nothing a URL cannot hold) and that
    /// URL is checked: one holding whitespace used to skip the check, and the daemon's FFmpeg
    /// fetched a loopback URL. Refused before any daemon is asked (there is none here).
    func testAMediaURLIsNormalizedOnceAndThatIsChecked() async throws {
        let h = try await APIHarness(configuration: ServerConfiguration(host: "127.0.0.1", port: 0, open: true, version: "test"))
        let local = h.feeds.url("/tone.mp3")
        for (text, status) in [(local + " x", 422), (local + "\\tx", 422), ("http://127.0.0.1 /x.mp3", 422), (local + "\\u0000", 422),
                               (local + "\\n", 400), (local + " ", 400), ("\\t" + local, 422), (local, 400), ("http://[::127.0.0.1]/x.mp3", 400),
                               ("http://2130706433/x.mp3", 400), ("http://[64:ff9b::7f00:1]/x.mp3", 400)] {
            for (path, body) in [("/api/player/play", #"{"url": "\#(text)"}"#), ("/api/player/play", #"{"target": "\#(text)"}"#),
                                 ("/api/player/queue", #"{"targets": ["\#(text)"]}"#)] {
                let reply = try await h.call("POST", path, body: body)
                XCTAssertEqual(reply.status, status, "\(path) \(text.debugDescription): \(reply.text)")
            }
        }
        let refused = try await h.call("POST", "/api/player/play", body: #"{"url": "\#(local)\n"}"#)
        XCTAssertEqual(try refused.object()["detail"] as? String, "\(local): refused: 127.0.0.1 is a local address (127.0.0.1); "
                       + "the server fetches pages only from public addresses unless started with --allow-private-feeds")
        XCTAssertEqual(try h.feeds.stats().hits["/tone.mp3"] ?? 0, 0)
    }
}
