import Foundation

/// A parec recording of a `PulseServer`'s null-sink monitor into `file` (raw s16le, stereo,
/// 48 kHz), measured with `sox … remix 1 stat`.
public final class Recording {
    public struct Stats: CustomStringConvertible {
        public let rms: Double
        public let frequency: Double
        public let seconds: Double
        public var description: String { "RMS \(rms), \(frequency) Hz over \(seconds) s" }
    }

    /// What sox needs before `file` to read it: raw samples have no header.
    public static let soxFormat = ["-t", "raw", "-r", "48000", "-e", "signed", "-b", "16", "-c", "2"]

    private let process = Process()
    private let output: FileHandle
    public let file: URL

    /// Starts parec and returns once samples flow (at least 25 ms of them), or after 5 s: parec
    /// is slow to connect on a loaded machine, and an idle monitor may send nothing at all.
    init(server: PulseServer) throws {
        file = server.directory.appendingPathComponent("rec-\(UUID().uuidString.prefix(8)).raw")
        guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
            throw ProcessRunner.Failure(description: "cannot create \(file.path)")
        }
        output = try FileHandle(forWritingTo: file)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // Raw samples need no header, so SIGKILL ends the recording cleanly (SIGINT may be
        // blocked in children spawned from libdispatch threads, and a WAV needs it).
        process.arguments = ["parec", "-d", "nullsink.monitor", "--latency-msec=20", "--format=s16le", "--rate=48000",
                             "--channels=2", "--raw"]
        process.environment = server.environment
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        _ = eventually(timeout: 5) { size > 4800 }
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? output.close()
    }

    private var size: Int {
        ((try? FileManager.default.attributesOfItem(atPath: file.path)[.size]) as? NSNumber)?.intValue ?? 0
    }

    /// Stops recording and measures channel 1 (as sox does: nothing recorded is 0 seconds).
    public func stop() throws -> Stats {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? output.close()
        let out = try ProcessRunner.run("sox", Self.soxFormat + [file.path, "-n", "remix", "1", "stat"])
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
