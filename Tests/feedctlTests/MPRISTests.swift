import FeedText
import Foundation
import TestSupport
import XCTest

/// A real `feedctl daemon` on a private session bus and PulseAudio, driven by `playerctl`,
/// `busctl` and `dbus-monitor` exactly as a desktop would.
final class MPRISTests: XCTestCase {
    nonisolated(unsafe) static var shared: Result<MPRISEnvironment, Error>?
    static let object = ["org.mpris.MediaPlayer2.feedctl", "/org/mpris/MediaPlayer2"]
    static let player = "org.mpris.MediaPlayer2.Player"
    static let root = "org.mpris.MediaPlayer2"

    var env: MPRISEnvironment!
    var daemon: DaemonUnderTest?
    var monitor: Process?

    override class func setUp() {
        super.setUp()
        shared = Result { try MPRISEnvironment() }
    }

    override class func tearDown() {
        if case .success(let env)? = shared { env.shutdown() }
        shared = nil
        super.tearDown()
    }

    override func setUpWithError() throws {
        guard let shared = Self.shared else { throw ProcessRunner.Failure(description: "MPRIS environment missing") }
        env = try shared.get()
    }

    override func tearDown() {
        daemon?.stop()
        if let monitor, monitor.isRunning { monitor.terminate(); monitor.waitUntilExit() }
        super.tearDown()
    }

    // MARK: Helpers

    func startDaemon(_ name: String = #function, environment: [String: String]? = nil) throws -> DaemonUnderTest {
        let name = name.filter { $0.isLetter || $0.isNumber }
        let started = try DaemonUnderTest(in: env.directory, name: name, environment: environment ?? env.environment)
        daemon = started
        return started
    }

    /// Subscribes the library to the test feed and plays its one item; returns the item id.
    func playLibraryItem(_ daemon: DaemonUnderTest) throws -> Int {
        let add = try daemon.cli(["channel", "add", env.feedURL], player: false)
        XCTAssertEqual(add.status, 0, add.stderr)
        let feed = try daemon.cli(["feed", "--json"], player: false)
        let items = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(feed.stdout.utf8)) as? [[String: Any]])
        let id = try XCTUnwrap(items.first?["id"] as? Int)
        let play = try daemon.cli(["play", String(id)])
        XCTAssertEqual(play.status, 0, play.stderr)
        XCTAssertTrue(eventually(timeout: 10) { self.playerctl("status").output == "Playing" })
        return id
    }

    @discardableResult
    func playerctl(_ arguments: String...) -> Tool.Result {
        Tool.run("playerctl", ["-p", "feedctl"] + arguments, environment: env.environment)
    }

    /// playerctl prints object paths quoted.
    func trackID() -> String {
        playerctl("metadata", "mpris:trackid").output.trimmingCharacters(in: CharacterSet(charactersIn: "'"))
    }

    @discardableResult
    func busctl(_ arguments: [String]) -> Tool.Result {
        Tool.run("busctl", ["--address=\(env.busAddress)"] + arguments, environment: env.environment)
    }

    func call(_ method: String, _ arguments: String...) -> Tool.Result {
        // "--": negative numbers are arguments, not options.
        busctl(["call", "--"] + Self.object + [Self.player, method] + arguments)
    }

    /// A property as busctl's JSON: its D-Bus type and value.
    func property(_ name: String, _ interface: String = player) throws -> (type: String, data: Any) {
        let result = busctl(["--json=short", "get-property"] + Self.object + [interface, name])
        XCTAssertEqual(result.status, 0, result.stderr)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        return (try XCTUnwrap(object["type"] as? String), try XCTUnwrap(object["data"]))
    }

    func position() throws -> Int64 {
        let p = try property("Position")
        XCTAssertEqual(p.type, "x")
        return try XCTUnwrap((p.data as? NSNumber)?.int64Value)
    }

    /// dbus-monitor on the MPRIS object's signals, writing to a file.
    func startMonitor() throws -> URL {
        let file = env.directory.appendingPathComponent("monitor-\(UUID().uuidString.prefix(6)).txt")
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["dbus-monitor", "--address", env.busAddress, "type='signal',path='/org/mpris/MediaPlayer2'"]
        process.environment = env.environment
        process.standardOutput = try FileHandle(forWritingTo: file)
        process.standardError = FileHandle.nullDevice
        try process.run()
        monitor = process
        // dbus-monitor announces itself (NameAcquired/NameLost) once its match rules are active.
        XCTAssertTrue(eventually(timeout: 10) { self.text(file).contains("NameLost") }, "dbus-monitor did not start")
        return file
    }

    func text(_ file: URL) -> String { (try? String(contentsOf: file, encoding: .utf8)) ?? "" }

    /// The Seeked signals' positions, in order.
    func seeked(_ file: URL) -> [Int64] {
        let lines = text(file).split(separator: "\n")
        return lines.indices.compactMap { i in
            guard lines[i].contains("member=Seeked"), i + 1 < lines.count else { return nil }
            let value = lines[i + 1].trimmingCharacters(in: .whitespaces)
            return value.hasPrefix("int64 ") ? Int64(value.dropFirst(6)) : nil
        }
    }

    // MARK: Tests

    func testPlayerctlControlsTheDaemon() throws {
        let daemon = try startDaemon()
        XCTAssertEqual(Tool.run("playerctl", ["-l"], environment: env.environment).output, "feedctl")
        let signals = try startMonitor()
        let id = try playLibraryItem(daemon)

        XCTAssertEqual(playerctl("status").output, "Playing")
        XCTAssertEqual(playerctl("metadata", "xesam:title").output, "Episode A")
        XCTAssertEqual(playerctl("metadata", "xesam:artist").output, "Tone Show")
        XCTAssertEqual(trackID(), "/org/feedctl/item/\(id)")
        XCTAssertEqual(playerctl("metadata", "mpris:length").output, "60000000")
        XCTAssertEqual(playerctl("metadata", "xesam:url").output, env.mediaURL("a.mp3"))

        // Paused, the position is frozen, so relative seeks land on exact values, and stay paused.
        XCTAssertEqual(playerctl("pause").status, 0)
        XCTAssertEqual(playerctl("status").output, "Paused")
        let before = try position()
        let shown = try XCTUnwrap(Double(playerctl("position").output))
        XCTAssertEqual(shown, Double(before) / 1e6, accuracy: 1e-6)
        XCTAssertEqual(playerctl("position", "15+").status, 0)
        XCTAssertEqual(try position(), before + 15_000_000, accuracy: 1)
        XCTAssertEqual(playerctl("status").output, "Paused")
        XCTAssertEqual(playerctl("position", "15-").status, 0)
        XCTAssertEqual(try position(), before, accuracy: 1)
        XCTAssertEqual(playerctl("status").output, "Paused")

        XCTAssertEqual(playerctl("play-pause").status, 0)
        XCTAssertEqual(playerctl("status").output, "Playing")
        XCTAssertEqual(try daemon.status()["status"] as? String, "playing")
        XCTAssertEqual(playerctl("play-pause").status, 0)
        XCTAssertEqual(playerctl("status").output, "Paused")

        // next plays the queued item; a URL gets a /org/feedctl/track/N id.
        XCTAssertEqual(try property("CanGoNext").data as? Bool, false)
        XCTAssertEqual(try daemon.cli(["queue", "add", env.mediaURL("b.mp3")]).status, 0)
        XCTAssertTrue(eventually(timeout: 5) { (try? self.property("CanGoNext").data as? Bool) == true })
        XCTAssertEqual(playerctl("next").status, 0)
        XCTAssertEqual(playerctl("status").output, "Playing")
        XCTAssertEqual(playerctl("metadata", "xesam:title").output, "b.mp3")
        let track = trackID()
        XCTAssertTrue(track.hasPrefix("/org/feedctl/track/"), track)
        XCTAssertNotNil(Int(track.dropFirst("/org/feedctl/track/".count)), track)
        XCTAssertEqual(try property("CanGoNext").data as? Bool, false)
        // Clients learned of the new track and of the queue through PropertiesChanged.
        XCTAssertTrue(eventually(timeout: 5) { self.text(signals).contains("string \"b.mp3\"") }, text(signals))
        XCTAssertTrue(text(signals).contains("string \"Metadata\""))
        XCTAssertTrue(text(signals).contains("string \"CanGoNext\""))
        XCTAssertTrue(text(signals).contains("string \"CanPlay\""))
        XCTAssertFalse(text(signals).contains("\"Position\""))

        XCTAssertEqual(playerctl("stop").status, 0)
        XCTAssertEqual(playerctl("status").output, "Stopped")
        XCTAssertEqual(try daemon.status()["status"] as? String, "stopped")
        XCTAssertEqual(try position(), 0)
        XCTAssertEqual(try property("CanPlay").data as? Bool, false)
    }

    func testSeekedSignalAndPropertyTypes() throws {
        let daemon = try startDaemon()
        let id = try playLibraryItem(daemon)
        let signals = try startMonitor()
        XCTAssertEqual(call("Pause").status, 0)
        let start = try position()

        // Seek is relative; Seeked carries the new position in µs.
        XCTAssertEqual(call("Seek", "x", "15000000").status, 0)
        let afterSeek = try position()
        XCTAssertEqual(afterSeek, start + 15_000_000, accuracy: 1)
        // SetPosition is absolute, for the current track only and inside it.
        XCTAssertEqual(call("SetPosition", "ox", "/org/feedctl/item/\(id)", "20000000").status, 0)
        XCTAssertEqual(try position(), 20_000_000)
        XCTAssertEqual(call("SetPosition", "ox", "/org/feedctl/item/\(id + 1)", "5000000").status, 0)
        XCTAssertEqual(call("SetPosition", "ox", "/org/feedctl/item/\(id)", "-1").status, 0)
        XCTAssertEqual(call("SetPosition", "ox", "/org/feedctl/item/\(id)", "61000000").status, 0)
        XCTAssertEqual(try position(), 20_000_000)
        // Seeking back past the start clamps at 0.
        XCTAssertEqual(call("Seek", "x", "-30000000").status, 0)
        XCTAssertEqual(try position(), 0)
        XCTAssertEqual(try property("PlaybackStatus").data as? String, "Paused")

        XCTAssertTrue(eventually(timeout: 5) { self.seeked(signals).count >= 3 })
        let values = seeked(signals)
        XCTAssertEqual(values.count, 3, "\(values)")
        XCTAssertEqual(values.first, afterSeek)
        XCTAssertEqual(Array(values.dropFirst()), [20_000_000, 0])

        // Property types and values, per the spec.
        let metadata = try property("Metadata")
        XCTAssertEqual(metadata.type, "a{sv}")
        let entries = try XCTUnwrap(metadata.data as? [String: [String: Any]])
        XCTAssertEqual(entries["mpris:trackid"]?["type"] as? String, "o")
        XCTAssertEqual(entries["mpris:trackid"]?["data"] as? String, "/org/feedctl/item/\(id)")
        XCTAssertEqual(entries["xesam:artist"]?["type"] as? String, "as")
        XCTAssertEqual(entries["xesam:artist"]?["data"] as? [String], ["Tone Show"])
        XCTAssertEqual(entries["mpris:length"]?["type"] as? String, "x")
        XCTAssertEqual((entries["mpris:length"]?["data"] as? NSNumber)?.int64Value, 60_000_000)
        XCTAssertEqual(entries["xesam:title"]?["type"] as? String, "s")
        XCTAssertEqual(entries["xesam:album"]?["data"] as? String, "Tone Show")
        for (name, type) in [("Position", "x"), ("Volume", "d"), ("Rate", "d"), ("PlaybackStatus", "s"),
                             ("MinimumRate", "d"), ("MaximumRate", "d"), ("CanGoNext", "b"), ("CanGoPrevious", "b"),
                             ("CanPlay", "b"), ("CanPause", "b"), ("CanSeek", "b"), ("CanControl", "b")] {
            XCTAssertEqual(try property(name).type, type, name)
        }
        for name in ["CanPlay", "CanPause", "CanSeek", "CanControl"] {
            XCTAssertEqual(try property(name).data as? Bool, true, name)
        }
        XCTAssertEqual(try property("Identity", Self.root).data as? String, "feedctl")
        XCTAssertEqual(try property("CanQuit", Self.root).data as? Bool, true)
        XCTAssertEqual(try property("CanRaise", Self.root).data as? Bool, false)
        XCTAssertEqual(try property("HasTrackList", Self.root).data as? Bool, false)
        XCTAssertEqual(try property("SupportedUriSchemes", Self.root).data as? [String], ["http", "https"])
        XCTAssertEqual(try property("SupportedUriSchemes", Self.root).type, "as")
        XCTAssertTrue((try property("SupportedMimeTypes", Self.root).data as? [String])?.contains("audio/mpeg") == true)

        // Writable Volume and Rate (the playback speed, 0.5–3).
        XCTAssertEqual(busctl(["set-property"] + Self.object + [Self.player, "Volume", "d", "0.25"]).status, 0)
        XCTAssertEqual(try property("Volume").data as? Double, 0.25)
        XCTAssertEqual(try daemon.status()["volume"] as? Double, 0.25)
        // Outside 0…1 it is held there (`PlayerVolume(clamping:)`): negative is 0 (the spec), no amplification.
        XCTAssertEqual(busctl(["set-property"] + Self.object + [Self.player, "Volume", "d", "1.5"]).status, 0)
        XCTAssertTrue(eventually(timeout: 5) { (try? daemon.status()["volume"] as? Double) == 1 })
        XCTAssertEqual(busctl(["set-property", "--"] + Self.object + [Self.player, "Volume", "d", "-0.5"]).status, 0)
        XCTAssertTrue(eventually(timeout: 5) { (try? daemon.status()["volume"] as? Double) == 0 })
        XCTAssertEqual(busctl(["set-property"] + Self.object + [Self.player, "Volume", "d", "0.25"]).status, 0)
        XCTAssertTrue(eventually(timeout: 5) { (try? daemon.status()["volume"] as? Double) == 0.25 })
        XCTAssertNotEqual(busctl(["set-property"] + Self.object + [Self.player, "Rate", "d", "4.0"]).status, 0)
        XCTAssertEqual(try property("MinimumRate").data as? Double, 0.5)
        XCTAssertEqual(try property("MaximumRate").data as? Double, 3)
        XCTAssertEqual(busctl(["set-property"] + Self.object + [Self.player, "Rate", "d", "2.0"]).status, 0)
        XCTAssertTrue(eventually(timeout: 5) { (try? self.property("Rate").data as? Double) == 2 })
        XCTAssertEqual(try daemon.status()["rate"] as? Double, 2)
        XCTAssertEqual(busctl(["set-property"] + Self.object + [Self.player, "Rate", "d", "1.0"]).status, 0)
        XCTAssertTrue(eventually(timeout: 5) { (try? self.property("Rate").data as? Double) == 1 })

        // PropertiesChanged: PlaybackStatus and Volume were announced; Position never is.
        XCTAssertTrue(eventually(timeout: 5) { self.text(signals).contains("\"Volume\"") })
        let log = text(signals)
        XCTAssertTrue(log.contains("member=PropertiesChanged"))
        XCTAssertTrue(log.contains("string \"PlaybackStatus\""))
        XCTAssertFalse(log.contains("\"Position\""))
    }

    func testOpenUriAndQuit() throws {
        let daemon = try startDaemon()
        XCTAssertEqual(call("OpenUri", "s", env.mediaURL("b.mp3")).status, 0)
        XCTAssertEqual(playerctl("status").output, "Playing")
        XCTAssertEqual(playerctl("metadata", "xesam:title").output, "b.mp3")
        XCTAssertEqual(playerctl("metadata", "mpris:length").output, "60029388")

        let local = call("OpenUri", "s", "file:///etc/passwd")
        XCTAssertNotEqual(local.status, 0)
        XCTAssertTrue(local.stderr.contains("http and https"), local.stderr)
        let missing = call("OpenUri", "s", env.mediaURL("missing.mp3"))
        XCTAssertNotEqual(missing.status, 0)
        XCTAssertTrue(missing.stderr.contains("404"), missing.stderr)

        XCTAssertEqual(busctl(["call"] + Self.object + [Self.root, "Quit"]).status, 0)
        XCTAssertTrue(eventually(timeout: 10) { !daemon.process.isRunning }, "Quit did not stop the daemon")
        XCTAssertEqual(daemon.process.terminationStatus, 0)
        XCTAssertEqual(Tool.run("playerctl", ["-l"], environment: env.environment).output, "")
    }

    func testSecondDaemonTakesAnInstanceName() throws {
        _ = try startDaemon()
        let second = try DaemonUnderTest(in: env.directory, name: "second", environment: env.environment)
        defer { second.stop() }
        let instance = "org.mpris.MediaPlayer2.feedctl.instance\(second.process.processIdentifier)"
        XCTAssertTrue(second.log.contains("MPRIS: exported on the session bus as \(instance)"), second.log)
        let players = Tool.run("playerctl", ["-l"], environment: env.environment).output.split(separator: "\n")
        XCTAssertEqual(Set(players), ["feedctl", "feedctl.instance\(second.process.processIdentifier)"])
    }

    func testDaemonRunsWithoutABus() throws {
        var environment = env.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=\(env.directory.path)/no-such-bus"
        let daemon = try startDaemon(environment: environment)
        let file = env.directory.appendingPathComponent("www/a.mp3").path
        let play = try daemon.cli(["play", file])
        XCTAssertEqual(play.status, 0, play.stderr)
        XCTAssertEqual(try daemon.status()["status"] as? String, "playing")
        XCTAssertEqual(try daemon.cli(["quit"]).status, 0)
        XCTAssertTrue(eventually(timeout: 10) { !daemon.process.isRunning })
        let lines = daemon.log.split(separator: "\n").filter { $0.contains("MPRIS") }
        XCTAssertEqual(lines.count, 1, daemon.log)
        XCTAssertTrue(lines.first?.contains("no session bus reachable") == true, daemon.log)
        XCTAssertTrue(lines.first?.hasSuffix("running without MPRIS") == true, daemon.log)
    }
}
