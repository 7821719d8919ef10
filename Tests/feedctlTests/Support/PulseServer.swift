import Foundation

/// A private headless PulseAudio with a null sink, as in shared/recipes/headless-audio.md: its
/// runtime, config and state dirs live under `directory`, so test classes never share a server.
final class PulseServer: @unchecked Sendable {
    let directory: URL
    /// `directory/run`: the XDG_RUNTIME_DIR of everything the test starts.
    let runtimeDirectory: String
    let server: String
    let environment: [String: String]

    init(directory: URL) throws {
        self.directory = directory
        runtimeDirectory = directory.appendingPathComponent("run").path
        let pulseRuntime = runtimeDirectory + "/pulse"
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
        guard eventually(timeout: 5, { isRunning }) else {
            throw ProcessRunner.Failure(description: "headless PulseAudio did not come up (see \(directory.path)/pulse.log)")
        }
        try ProcessRunner.run("pactl", ["set-default-sink", "nullsink"], environment: env)
    }

    var isRunning: Bool { (try? ProcessRunner.run("pactl", ["info"], environment: environment, timeout: 10)) != nil }

    func stop() {
        _ = try? ProcessRunner.run("pactl", ["exit"], environment: environment, timeout: 10)
        _ = eventually(timeout: 5) { !isRunning }
    }

    /// Starts recording the null sink's monitor.
    func startRecording() throws -> Recording { try Recording(server: self) }
}

/// A parec recording of the null sink's monitor, measured with `sox … remix 1 stat`.
final class Recording {
    struct Stats: CustomStringConvertible {
        let rms: Double
        let frequency: Double
        let seconds: Double
        var description: String { "RMS \(rms), \(frequency) Hz over \(seconds) s" }
    }

    private let process = Process()
    let file: URL

    init(server: PulseServer) throws {
        file = server.directory.appendingPathComponent("rec-\(UUID().uuidString.prefix(8)).wav")
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["parec", "-d", "nullsink.monitor", "--latency-msec=20", "--format=s16le", "--rate=48000",
                             "--channels=2", "--file-format=wav", file.path]
        process.environment = server.environment
        try process.run()
        // parec takes a while to start and connect on a loaded machine: the recording starts when
        // samples flow (25 ms past the WAV header), so a short recording is never empty.
        _ = eventually(timeout: 5) {
            ((try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.intValue ?? 0) > 44 + 4800
        }
    }

    deinit { if process.isRunning { process.terminate() } }

    /// Stops recording and measures channel 1.
    func stop() throws -> Stats {
        process.interrupt()
        process.waitUntilExit()
        let out = try ProcessRunner.run("sox", [file.path, "-n", "remix", "1", "stat"])
        func value(_ label: String) -> Double {
            for line in out.split(separator: "\n") where line.hasPrefix(label) {
                if let v = line.split(separator: ":").last.flatMap({ Double($0.trimmingCharacters(in: .whitespaces)) }) {
                    return v
                }
            }
            return -1
        }
        return Stats(rms: value("RMS     amplitude"), frequency: value("Rough   frequency"),
                     seconds: value("Length (seconds)"))
    }
}
