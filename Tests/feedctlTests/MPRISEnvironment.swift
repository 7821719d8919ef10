import Foundation
import TestSupport
import XCTest

/// What the MPRIS tests run against, all private to one temp dir: a session `dbus-daemon`, a
/// headless PulseAudio with a null sink, the test HTTP server serving a podcast feed and two
/// generated 60 s MP3 tones. Only child processes see the bus address and the Pulse server.
final class MPRISEnvironment: @unchecked Sendable {
    let directory: URL
    let busAddress: String
    /// The environment for every child: daemon, CLI, playerctl, busctl, dbus-monitor.
    let environment: [String: String]
    private let pulse: PulseServer
    private let bus: Process
    private let http: TestHTTPServer

    var port: Int { http.port }
    var feedURL: String { http.url("/feed.xml") }
    func mediaURL(_ name: String) -> String { http.url("/\(name)") }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("feedctl-mpris-\(UUID().uuidString.prefix(8))")
        let www = directory.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)

        // Media first: the slowest part, and nothing to clean up if it fails.
        for (name, frequency) in [("a.mp3", 440), ("b.mp3", 660)] {
            try ToneMedia.encode(ToneMedia.sine(frequency, seconds: 60), ["-c:a", "libmp3lame", "-b:a", "96k"],
                                 to: www.appendingPathComponent(name))
        }

        pulse = try PulseServer(directory: directory)
        let run = pulse.runtimeDirectory
        busAddress = "unix:path=\(run)/bus"
        var env = pulse.environment
        env["XDG_DATA_HOME"] = directory.appendingPathComponent("data").path
        env["DBUS_SESSION_BUS_ADDRESS"] = busAddress
        environment = env

        bus = Process()
        bus.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        bus.arguments = ["dbus-daemon", "--session", "--nofork", "--nopidfile", "--address=\(busAddress)"]
        bus.environment = env
        bus.standardOutput = FileHandle.nullDevice
        try bus.run()
        guard eventually(timeout: 10, { FileManager.default.fileExists(atPath: run + "/bus") }) else {
            throw ProcessRunner.Failure(description: "the private dbus-daemon did not come up")
        }

        http = try TestHTTPServer(root: www)
        let port = http.port
        let feed = """
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel>
            <title>Tone Show</title><link>http://127.0.0.1:\(port)/</link><description>Tones</description>
            <item><title>Episode A</title><guid>ep-a</guid><pubDate>Mon, 02 Mar 2026 10:00:00 GMT</pubDate>
            <enclosure url="http://127.0.0.1:\(port)/a.mp3" type="audio/mpeg" length="1000"/>
            <itunes:duration>60</itunes:duration></item>
            </channel></rss>
            """
        try http.write("feed.xml", feed)
    }

    func shutdown() {
        http.stop()
        if bus.isRunning { bus.terminate() }
        bus.waitUntilExit()
        pulse.stop()
        try? FileManager.default.removeItem(at: directory)
    }
}

/// One `feedctl daemon`, with its own library and control socket, logging to a file.
final class DaemonUnderTest {
    let process = Process()
    let socket: String
    let database: String
    let logFile: URL
    let environment: [String: String]

    init(in directory: URL, name: String, environment: [String: String]) throws {
        socket = directory.appendingPathComponent("\(name).sock").path
        database = directory.appendingPathComponent("\(name).sqlite").path
        logFile = directory.appendingPathComponent("\(name).log")
        self.environment = environment
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        process.executableURL = try DaemonTestCase.feedctlBinary()
        process.arguments = ["daemon", "--socket", socket, "--db", database, "--sync-every", "0"]
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: logFile)
        try process.run()
        // The exporter logs one line either way once the daemon is up.
        guard eventually(timeout: 15, { self.log.contains("MPRIS: ") }) else {
            throw ProcessRunner.Failure(description: "feedctl daemon did not start: \(log)")
        }
    }

    var log: String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }

    /// Runs `feedctl ARGS` against this daemon (player verbs take --socket, library ones --db).
    @discardableResult
    func cli(_ arguments: [String], player: Bool = true) throws -> Tool.Result {
        let extra = player ? ["--socket", socket, "--db", database] : ["--db", database]
        return Tool.run(try DaemonTestCase.feedctlBinary().path, arguments + extra, environment: environment)
    }

    /// `status --json` as a dictionary.
    func status() throws -> [String: Any] {
        let result = try cli(["status", "--json"])
        guard let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] else {
            throw ProcessRunner.Failure(description: "status --json is not an object: \(result.stdout)")
        }
        return object
    }

    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}

/// Runs the tools the tests drive (playerctl, busctl, the built feedctl) with ProcessRunner's time
/// limit; a launch failure or a timeout is a failed result, which the test then asserts on.
enum Tool {
    typealias Result = ProcessRunner.Result

    static func run(_ tool: String, _ arguments: [String], environment: [String: String]? = nil) -> Result {
        do { return try ProcessRunner.capture(tool, arguments, environment: environment) }
        catch { return Result(status: -1, stdout: "", stderr: "\(tool): \(error)") }
    }
}

extension ProcessRunner.Result {
    /// stdout without its surrounding whitespace (playerctl and busctl end lines with a newline).
    var output: String { stdout.trimmingCharacters(in: .whitespacesAndNewlines) }
}
