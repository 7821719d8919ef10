import Foundation

/// A private headless PulseAudio with a null sink, as in shared/recipes/headless-audio.md: its
/// runtime, config and state dirs live under `directory`, so test classes (and parallel test
/// processes) never share a server.
public final class PulseServer: @unchecked Sendable {
    public let directory: URL
    /// `directory/run`: the XDG_RUNTIME_DIR of everything the test starts.
    public let runtimeDirectory: String
    /// The address for `PlayerConfiguration.Output.pulse(server:)`.
    public let server: String
    /// The caller's environment pointed at this server (XDG_RUNTIME_DIR, PULSE_SERVER, ...).
    public let environment: [String: String]
    /// `directory/run/pulse`: PULSE_RUNTIME_PATH, where the socket and pid file are.
    private let pulseRuntime: String

    /// Starts the server under `directory`, or under a fresh temp dir (see `remove()`).
    public init(directory: URL? = nil) throws {
        let directory = directory ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("feedctl-pulse-\(UUID().uuidString.prefix(8))")
        self.directory = directory
        runtimeDirectory = directory.appendingPathComponent("run").path
        pulseRuntime = runtimeDirectory + "/pulse"
        server = "unix:" + pulseRuntime + "/native"
        var env = ProcessInfo.processInfo.environment
        env["XDG_RUNTIME_DIR"] = runtimeDirectory
        env["XDG_CONFIG_HOME"] = directory.appendingPathComponent("config").path
        env["PULSE_RUNTIME_PATH"] = pulseRuntime
        env["PULSE_STATE_PATH"] = directory.appendingPathComponent("pulse-state").path
        env["PULSE_SERVER"] = server
        environment = env
        for path in [pulseRuntime, env["XDG_CONFIG_HOME"] ?? "", env["PULSE_STATE_PATH"] ?? ""] {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: runtimeDirectory)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: pulseRuntime)
        do {
            try ProcessRunner.run("pulseaudio", [
                "-D", "-n", "--exit-idle-time=-1", "--system=false",
                "--log-target=file:" + directory.appendingPathComponent("pulse.log").path,
                "--load=module-null-sink sink_name=nullsink rate=48000",
                "--load=module-native-protocol-unix auth-anonymous=1 socket=\(pulseRuntime)/native",
                "--load=module-always-sink",
            ], environment: env, timeout: 20)
        } catch {
            throw ProcessRunner.Failure(description: "cannot start a headless PulseAudio for the tests (is the pulseaudio package installed?): \(error)")
        }
        guard eventually(timeout: 10, { isRunning }) else {
            throw ProcessRunner.Failure(description: "headless PulseAudio did not come up (see \(directory.path)/pulse.log)")
        }
        try ProcessRunner.run("pactl", ["set-default-sink", "nullsink"], environment: env, timeout: 10)
    }

    /// Whether the server answers (a stopped daemon may linger as a zombie: `kill -0` would lie).
    public var isRunning: Bool { (try? ProcessRunner.run("pactl", ["info"], environment: environment, timeout: 10)) != nil }

    /// Asks the server to exit and waits (bounded) until it no longer answers.
    public func stop() {
        _ = try? ProcessRunner.run("pactl", ["exit"], environment: environment, timeout: 10)
        _ = eventually(timeout: 5) { !isRunning }
    }

    /// Kills the server abruptly (the "server goes away mid-play" case).
    public func kill() {
        if let text = try? String(contentsOfFile: pulseRuntime + "/pid", encoding: .utf8),
           let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
            Foundation.kill(pid, SIGKILL)
        }
        _ = eventually(timeout: 5) { !isRunning }
    }

    /// Deletes `directory` (call after `stop()`).
    public func remove() { try? FileManager.default.removeItem(at: directory) }

    /// Starts recording the null sink's monitor.
    public func startRecording() throws -> Recording { try Recording(server: self) }

    /// Records `seconds` of the null sink's monitor and measures it.
    public func record(_ seconds: Double) throws -> Recording.Stats {
        let recording = try startRecording()
        Thread.sleep(forTimeInterval: seconds)
        return try recording.stop()
    }
}
