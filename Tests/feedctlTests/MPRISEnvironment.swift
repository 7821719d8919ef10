import Foundation
import XCTest

/// What the MPRIS tests run against, all private to one temp dir: a session `dbus-daemon`, a
/// headless PulseAudio with a null sink, a stdlib HTTP server serving a podcast feed and two
/// generated 60 s MP3 tones. Only child processes see the bus address and the Pulse server.
final class MPRISEnvironment: @unchecked Sendable {
    let directory: URL
    let busAddress: String
    /// The environment for every child: daemon, CLI, playerctl, busctl, dbus-monitor.
    let environment: [String: String]
    let port: Int
    private let bus: Process
    private let http: Process
    private let httpInput = Pipe()

    var feedURL: String { "http://127.0.0.1:\(port)/feed.xml" }
    func mediaURL(_ name: String) -> String { "http://127.0.0.1:\(port)/\(name)" }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("feedctl-mpris-\(UUID().uuidString.prefix(8))")
        let run = directory.appendingPathComponent("run").path
        let pulseRuntime = run + "/pulse"
        let www = directory.appendingPathComponent("www")
        for path in [pulseRuntime, directory.appendingPathComponent("config").path,
                     directory.appendingPathComponent("pulse-state").path, www.path] {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: run)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: pulseRuntime)
        busAddress = "unix:path=\(run)/bus"

        var env = ProcessInfo.processInfo.environment
        env["XDG_RUNTIME_DIR"] = run
        env["XDG_CONFIG_HOME"] = directory.appendingPathComponent("config").path
        env["XDG_DATA_HOME"] = directory.appendingPathComponent("data").path
        env["PULSE_RUNTIME_PATH"] = pulseRuntime
        env["PULSE_STATE_PATH"] = directory.appendingPathComponent("pulse-state").path
        env["PULSE_SERVER"] = "unix:\(pulseRuntime)/native"
        env["DBUS_SESSION_BUS_ADDRESS"] = busAddress
        environment = env

        // Media and feed first: the slowest part, and nothing to clean up if it fails.
        for (name, frequency) in [("a.mp3", 440), ("b.mp3", 660)] {
            try Tool.check("ffmpeg", ["-nostdin", "-v", "error", "-y", "-f", "lavfi",
                                      "-i", "sine=frequency=\(frequency):sample_rate=44100:duration=60",
                                      "-c:a", "libmp3lame", "-b:a", "96k", "-fflags", "+bitexact", "-flags:a", "+bitexact",
                                      www.appendingPathComponent(name).path])
        }

        try Tool.check("pulseaudio", [
            "-D", "-n", "--exit-idle-time=-1", "--system=false",
            "--log-target=file:" + directory.appendingPathComponent("pulse.log").path,
            "--load=module-null-sink sink_name=nullsink rate=48000",
            "--load=module-native-protocol-unix auth-anonymous=1 socket=\(pulseRuntime)/native",
            "--load=module-always-sink",
        ], environment: env)
        guard waitFor(timeout: 10, { Tool.run("pactl", ["info"], environment: env).status == 0 }) else {
            throw Tool.Failure(description: "headless PulseAudio did not come up (see \(directory.path)/pulse.log)")
        }
        try Tool.check("pactl", ["set-default-sink", "nullsink"], environment: env)

        bus = Process()
        bus.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        bus.arguments = ["dbus-daemon", "--session", "--nofork", "--nopidfile", "--address=\(busAddress)"]
        bus.environment = env
        bus.standardOutput = FileHandle.nullDevice
        try bus.run()
        guard waitFor(timeout: 10, { FileManager.default.fileExists(atPath: run + "/bus") }) else {
            throw Tool.Failure(description: "the private dbus-daemon did not come up")
        }

        http = Process()
        http.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        http.arguments = ["python3", ParseCommandTests.packageRoot.appendingPathComponent("Tests/Support/http_server.py").path,
                          "--root", www.path]
        let out = Pipe()
        http.standardOutput = out
        http.standardInput = httpInput
        try http.run()
        let line = String(decoding: out.fileHandleForReading.portLine(), as: UTF8.self)
        guard let port = Int(line.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw Tool.Failure(description: "the test HTTP server printed no port: \(line)")
        }
        self.port = port

        let feed = """
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel>
            <title>Tone Show</title><link>http://127.0.0.1:\(port)/</link><description>Tones</description>
            <item><title>Episode A</title><guid>ep-a</guid><pubDate>Mon, 02 Mar 2026 10:00:00 GMT</pubDate>
            <enclosure url="http://127.0.0.1:\(port)/a.mp3" type="audio/mpeg" length="1000"/>
            <itunes:duration>60</itunes:duration></item>
            </channel></rss>
            """
        try Data(feed.utf8).write(to: www.appendingPathComponent("feed.xml"))
    }

    func shutdown() {
        try? httpInput.fileHandleForWriting.close()
        if http.isRunning { http.terminate() }
        if bus.isRunning { bus.terminate() }
        _ = Tool.run("pactl", ["exit"], environment: environment)
        http.waitUntilExit()
        bus.waitUntilExit()
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
        process.executableURL = try ParseCommandTests.feedctl()
        process.arguments = ["daemon", "--socket", socket, "--db", database, "--sync-every", "0"]
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: logFile)
        try process.run()
        // The exporter logs one line either way once the daemon is up.
        guard waitFor(timeout: 15, { self.log.contains("MPRIS: ") }) else {
            throw Tool.Failure(description: "feedctl daemon did not start: \(log)")
        }
    }

    var log: String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }

    /// Runs `feedctl ARGS` against this daemon (player verbs take --socket, library ones --db).
    @discardableResult
    func cli(_ arguments: [String], player: Bool = true) throws -> Tool.Result {
        let extra = player ? ["--socket", socket, "--db", database] : ["--db", database]
        return Tool.run(try ParseCommandTests.feedctl().path, arguments + extra, environment: environment)
    }

    /// `status --json` as a dictionary.
    func status() throws -> [String: Any] {
        let result = try cli(["status", "--json"])
        guard let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] else {
            throw Tool.Failure(description: "status --json is not an object: \(result.stdout)")
        }
        return object
    }

    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}

/// Runs the tools the tests drive (playerctl, busctl, ffmpeg, ...).
enum Tool {
    struct Failure: Error, CustomStringConvertible { let description: String }
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        var output: String { stdout.trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    static func run(_ tool: String, _ arguments: [String], environment: [String: String]? = nil) -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool.hasPrefix("/") ? tool : "/usr/bin/env")
        process.arguments = tool.hasPrefix("/") ? arguments : [tool] + arguments
        if let environment { process.environment = environment }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        do { try process.run() } catch { return Result(status: -1, stdout: "", stderr: "\(tool): \(error)") }
        // Read both pipes concurrently so neither fills up and blocks the tool.
        let errData = OnceValue<Data>()
        let reader = Thread { errData.set(err.fileHandleForReading.readDataToEndOfFile()) }
        reader.start()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        _ = waitFor(timeout: 5) { errData.isSet }
        return Result(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                      stderr: String(decoding: errData.value ?? Data(), as: UTF8.self))
    }

    static func check(_ tool: String, _ arguments: [String], environment: [String: String]? = nil) throws {
        let result = run(tool, arguments, environment: environment)
        guard result.status == 0 else {
            throw Failure(description: "\(tool) \(arguments.joined(separator: " ")) failed (\(result.status)): \(result.stderr.suffix(600))")
        }
    }
}

/// A value set once by another thread.
final class OnceValue<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value?
    func set(_ value: Value) { lock.withLock { stored = value } }
    var value: Value? { lock.withLock { stored } }
    var isSet: Bool { value != nil }
}

/// Polls `condition` every 20 ms until it holds or `timeout` passes (a bound, never an assertion on time).
func waitFor(timeout: Double, _ condition: () -> Bool) -> Bool {
    let end = Date().addingTimeInterval(timeout)
    while Date() < end {
        if condition() { return true }
        Thread.sleep(forTimeInterval: 0.02)
    }
    return condition()
}

extension FileHandle {
    /// Reads up to the first newline (the HTTP server's port line).
    fileprivate func portLine() -> Data {
        var line = Data()
        while true {
            let byte = readData(ofLength: 1)
            if byte.isEmpty || byte.first == UInt8(ascii: "\n") { return line }
            line.append(byte)
        }
    }
}
