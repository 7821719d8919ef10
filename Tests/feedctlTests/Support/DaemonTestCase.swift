import Foundation
import TestSupport
import XCTest

/// Base class of the daemon tests: each test class gets its own temp dir, headless PulseAudio
/// (null sink) and library; each test its own `feedctl daemon` child, quit in tearDown. The CLI
/// under test is the built binary, run with XDG_RUNTIME_DIR/PULSE_SERVER/FEEDCTL_DB pointing into
/// that private world. If PulseAudio or ffmpeg can't start, every test fails with the reason.
class DaemonTestCase: XCTestCase {
    /// One per test class.
    final class World: @unchecked Sendable {
        let directory: URL
        let pulse: PulseServer
        let db: String
        var socket: String { pulse.runtimeDirectory + "/feedctl/player.sock" }
        var environment: [String: String] {
            var env = pulse.environment
            env["FEEDCTL_DB"] = db
            env["FEEDCTL_SOCKET"] = nil   // the contract's default: $XDG_RUNTIME_DIR/feedctl/player.sock
            env["FEEDCTL_MEDIA"] = nil    // the default: media/ beside the library
            // The tester's own config file must not change what the daemon does here.
            env["XDG_CONFIG_HOME"] = directory.appendingPathComponent("config").path
            env["FEEDCTL_CONFIG"] = nil
            return env
        }

        init() throws {
            // Short: a Unix socket path must fit in 108 bytes.
            directory = URL(fileURLWithPath: "/tmp/fdt-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            db = directory.appendingPathComponent("library.sqlite").path
            pulse = try PulseServer(directory: directory)
        }

        func remove() {
            pulse.stop()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    nonisolated(unsafe) static var worlds: [ObjectIdentifier: Result<World, Error>] = [:]

    var world: World!
    var media: DaemonMedia!
    /// The daemon this test started (nil when none, or when autostart made it).
    var daemon: Process?

    override class func setUp() {
        super.setUp()
        worlds[ObjectIdentifier(self)] = Result { try World() }
    }

    override class func tearDown() {
        if case .success(let world)? = worlds[ObjectIdentifier(self)] {
            _ = try? ProcessRunner.capture(DaemonTestCase.binaryPath, ["quit"], environment: world.environment, timeout: 10)
            world.remove()
        }
        worlds[ObjectIdentifier(self)] = nil
        super.tearDown()
    }

    override func setUpWithError() throws {
        guard let result = Self.worlds[ObjectIdentifier(type(of: self))] else {
            throw ProcessRunner.Failure(description: "test world missing")
        }
        world = try result.get()
        media = try DaemonMedia.shared.get()
        _ = try Self.feedctlBinary()
    }

    override func tearDown() {
        // Whoever started it, the daemon on this socket goes; ours is killed if it won't quit.
        _ = try? feedctl("quit", timeout: 10)
        // The next test's daemon must not find this one still listening.
        _ = eventually(timeout: 5) { !FileManager.default.fileExists(atPath: world.socket) }
        if let daemon {
            if !eventually(timeout: 5, { !daemon.isRunning }) {
                kill(daemon.processIdentifier, SIGKILL)
                daemon.waitUntilExit()
            }
        }
        daemon = nil
        super.tearDown()
    }

    // MARK: The binary

    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static var binaryPath: String { (try? feedctlBinary().path) ?? "feedctl" }

    /// The feedctl the tests were built with (`PackagePaths.builtProgram`).
    static func feedctlBinary() throws -> URL {
        guard let found = PackagePaths.builtProgram("feedctl") else {
            throw ProcessRunner.Failure(description: "feedctl binary not found beside the tests or in .build/debug; run `swift build` first")
        }
        return found
    }

    /// Runs `feedctl ARGS` in the test's world (bounded: a hang is a failure, not a stuck suite).
    @discardableResult
    func feedctl(_ arguments: String..., environment overrides: [String: String?] = [:], timeout: Double = 30) throws -> ProcessRunner.Result {
        try feedctl(arguments, environment: overrides, timeout: timeout)
    }

    @discardableResult
    func feedctl(_ arguments: [String], environment overrides: [String: String?] = [:], timeout: Double = 30) throws -> ProcessRunner.Result {
        var env = world.environment
        for (key, value) in overrides { env[key] = value }
        return try ProcessRunner.capture(try Self.feedctlBinary().path, arguments, environment: env, timeout: timeout)
    }

    /// Runs `feedctl ARGS` and fails the test unless it exits 0.
    @discardableResult
    func succeed(_ arguments: String..., file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let result = try feedctl(arguments)
        XCTAssertEqual(result.status, 0, "feedctl \(arguments.joined(separator: " ")): \(result.stderr)", file: file, line: line)
        return result.stdout
    }

    // MARK: The daemon

    /// Starts `feedctl daemon --socket S --db D [ARGUMENTS]` as a child and waits until it answers.
    @discardableResult
    /// `options` replace the default `--sync-every 0`; `openFiles` caps its descriptors (prlimit,
    /// which then runs it as the same process).
    func startDaemon(socket: String? = nil, arguments: [String] = [], environment overrides: [String: String?] = [:],
                     options: [String] = ["--sync-every", "0"], openFiles: Int? = nil) throws -> Process {
        let path = socket ?? world.socket
        let (process, log) = try launchDaemon(socket: path, arguments: arguments, environment: overrides, options: options, openFiles: openFiles)
        let up = eventually(timeout: 10) { process.isRunning && (try? ControlSocket(path: path)) != nil }
        guard up else {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            throw ProcessRunner.Failure(description: "feedctl daemon did not come up on \(path): \(text)")
        }
        return process
    }

    /// Starts `feedctl daemon` on `path` without waiting for it (`startDaemon` waits until it
    /// answers); the process and its log.
    func launchDaemon(socket path: String, arguments: [String] = [], environment overrides: [String: String?] = [:],
                      options: [String] = ["--sync-every", "0"], openFiles: Int? = nil) throws -> (Process, URL) {
        let process = Process()
        process.executableURL = try Self.feedctlBinary()
        process.arguments = ["daemon", "--socket", path, "--db", world.db] + options + arguments
        if let openFiles {
            process.arguments = ["--nofile=\(openFiles):\(openFiles)", try Self.feedctlBinary().path] + (process.arguments ?? [])
            process.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
        }
        var env = world.environment
        for (key, value) in overrides { env[key] = value }
        process.environment = env
        let log = world.directory.appendingPathComponent("daemon-\(UUID().uuidString.prefix(6)).log")
        daemonLog = log
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try? handle.close()
        daemon = process
        return (process, log)
    }

    // MARK: Status

    /// `feedctl status --json`, parsed.
    /// The log of the daemon `startDaemon` started last.
    private(set) var daemonLog: URL?

    /// Waits (bounded) until the daemon's log says `text`: an event the daemon reports only there.
    @discardableResult
    func waitForLog(_ text: String, timeout: Double = 15, file: StaticString = #filePath, line: UInt = #line) -> Bool {
        let found = eventually(timeout: timeout) {
            daemonLog.flatMap { try? String(contentsOf: $0, encoding: .utf8) }?.contains(text) ?? false
        }
        XCTAssertTrue(found, "the daemon never logged \"\(text)\"", file: file, line: line)
        return found
    }

    /// The queue's targets, in order (`queue list --json`).
    func queue() throws -> [String] {
        let listed = try succeed("queue", "list", "--json")
        let entries = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [[String: Any]])
        return entries.map { ($0["target"] as? String) ?? "?" }
    }

    func status(file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let result = try feedctl("status", "--json")
        XCTAssertEqual(result.status, 0, "status --json: \(result.stderr)", file: file, line: line)
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
        return try XCTUnwrap(object as? [String: Any], "status --json printed \(result.stdout)", file: file, line: line)
    }

    /// Polls `status --json` until `condition` holds (bounded); returns the last status seen.
    @discardableResult
    func waitForStatus(timeout: Double = 10, _ what: String, file: StaticString = #filePath, line: UInt = #line,
                       _ condition: ([String: Any]) -> Bool) throws -> [String: Any] {
        let end = Date().addingTimeInterval(timeout)
        var last = try status(file: file, line: line)
        while !condition(last) && Date() < end {
            Thread.sleep(forTimeInterval: 0.1)
            last = try status(file: file, line: line)
        }
        XCTAssertTrue(condition(last), "never reached: \(what); last status \(last)", file: file, line: line)
        return last
    }

    // MARK: What reached the sink

    /// Records `seconds` of the null sink's monitor and measures it.
    func record(_ seconds: Double) throws -> Recording.Stats { try world.pulse.record(seconds) }

    func assertTone(_ stats: Recording.Stats, _ frequency: Double, _ what: String,
                    file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(stats.frequency, frequency, accuracy: frequency * 0.05,
                       "\(what): heard \(stats), expected \(frequency) Hz", file: file, line: line)
        XCTAssertGreaterThan(stats.rms, 0.05, "\(what): too quiet (\(stats))", file: file, line: line)
    }

    func assertSilence(_ stats: Recording.Stats, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertLessThan(stats.rms, 0.01, "\(what): expected silence, heard \(stats)", file: file, line: line)
    }
}

extension Dictionary where Key == String, Value == Any {
    func double(_ key: String) -> Double? { (self[key] as? NSNumber)?.doubleValue }
    func string(_ key: String) -> String? { self[key] as? String }
    func isNull(_ key: String) -> Bool { self[key] is NSNull }
}
