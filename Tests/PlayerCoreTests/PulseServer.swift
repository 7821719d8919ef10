import Foundation
import XCTest

/// A private headless PulseAudio with a null sink, exactly as in shared/recipes/headless-audio.md:
/// its own runtime/config/state dirs in a fresh temp dir, so test classes (and parallel test
/// processes) never share a server.
final class PulseServer: @unchecked Sendable {
    let directory: URL
    let runtimePath: String
    /// The address for `PlayerConfiguration.Output.pulse(server:)`.
    let server: String
    let environment: [String: String]

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("feedctl-pulse-\(UUID().uuidString.prefix(8))")
        let run = directory.appendingPathComponent("run").path
        runtimePath = run + "/pulse"
        server = "unix:" + runtimePath + "/native"
        var env = ProcessInfo.processInfo.environment
        env["XDG_RUNTIME_DIR"] = run
        env["XDG_CONFIG_HOME"] = directory.appendingPathComponent("config").path
        env["PULSE_RUNTIME_PATH"] = runtimePath
        env["PULSE_STATE_PATH"] = directory.appendingPathComponent("state").path
        env["PULSE_SERVER"] = server
        environment = env
        for path in [runtimePath, env["XDG_CONFIG_HOME"] ?? "", env["PULSE_STATE_PATH"] ?? ""] {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: run)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: runtimePath)
        do {
            try ProcessRunner.run("pulseaudio", [
                "-D", "-n", "--exit-idle-time=-1", "--system=false",
                "--log-target=file:" + directory.appendingPathComponent("pulse.log").path,
                "--load=module-null-sink sink_name=nullsink rate=48000",
                "--load=module-native-protocol-unix auth-anonymous=1 socket=\(runtimePath)/native",
                "--load=module-always-sink",
            ], environment: env)
        } catch {
            throw ProcessRunner.Failure(description: "cannot start a headless PulseAudio for the tests: \(error)")
        }
        let up = eventually(timeout: 5) { (try? ProcessRunner.run("pactl", ["info"], environment: env)) != nil }
        guard up else { throw ProcessRunner.Failure(description: "headless PulseAudio did not come up (see \(directory.path)/pulse.log)") }
        try ProcessRunner.run("pactl", ["set-default-sink", "nullsink"], environment: env)
    }

    var isRunning: Bool { (try? ProcessRunner.run("pactl", ["info"], environment: environment)) != nil }

    func stop() {
        _ = try? ProcessRunner.run("pactl", ["exit"], environment: environment)
        _ = eventually(timeout: 5) { !isRunning }
    }

    /// Kills the server abruptly (the "server goes away mid-play" case).
    func kill() {
        let pidFile = runtimePath + "/pid"
        if let text = try? String(contentsOfFile: pidFile, encoding: .utf8),
           let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
            Foundation.kill(pid, SIGKILL)
        }
        _ = eventually(timeout: 5) { !isRunning }
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }

    /// Starts recording the null sink's monitor.
    func startRecording() throws -> Recording { try Recording(server: self) }
}

/// A parec recording of the null sink's monitor (raw s16le stereo 48 kHz), measured with sox.
final class Recording {
    struct Stats {
        let rms: Double
        let frequency: Double
        let seconds: Double
    }

    private let process = Process()
    private let output: FileHandle
    let file: URL

    /// Starts parec and returns once audio arrives (or after 2 s: an idle monitor may send nothing).
    init(server: PulseServer) throws {
        file = server.directory.appendingPathComponent("rec-\(UUID().uuidString.prefix(8)).raw")
        guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
            throw ProcessRunner.Failure(description: "cannot create \(file.path)")
        }
        output = try FileHandle(forWritingTo: file)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // Raw samples need no header, so a plain kill ends the recording cleanly (SIGINT may be
        // blocked in children spawned from libdispatch threads).
        process.arguments = ["parec", "-d", "nullsink.monitor", "--latency-msec=20", "--format=s16le", "--rate=48000",
                             "--channels=2", "--raw"]
        process.environment = server.environment
        process.standardOutput = output
        try process.run()
        _ = eventually(timeout: 2) { (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0 > 0 }
    }

    /// Stops recording and measures channel 1.
    func stop() throws -> Stats {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? output.close()
        let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
        guard size >= 4 else { return Stats(rms: 0, frequency: 0, seconds: 0) }
        let out = try ProcessRunner.run("sox", ["-t", "raw", "-r", "48000", "-e", "signed", "-b", "16", "-c", "2",
                                                file.path, "-n", "remix", "1", "stat"])
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
