import Foundation
import TestSupport

/// Test media generated with ffmpeg's bitexact sine source, once per test process.
final class DaemonMedia: @unchecked Sendable {
    static let shared: Result<DaemonMedia, Error> = Result { try DaemonMedia() }

    let directory: URL
    /// 60 s MP3: 440 Hz 0–15 s, 660 Hz 15–30 s, 880 Hz 30–45 s, 1100 Hz 45–60 s.
    let segments: URL
    /// 3 s of 550 Hz (MP3): plays to its end quickly.
    let short: URL
    /// 3 s of 990 Hz (Ogg Vorbis): the second item of a queue.
    let shortOgg: URL
    /// An M4A with its index at the end, cut in half: unplayable.
    let truncated: URL
    /// Bytes that are no media at all.
    let garbage: URL

    /// Removed when the test process exits.
    nonisolated(unsafe) static var generated: String?

    static func segmentFrequency(at seconds: Double) -> Double { [440, 660, 880, 1100][min(3, max(0, Int(seconds / 15)))] }

    private init() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("feedctl-daemon-media-\(UUID().uuidString.prefix(8))")
        self.directory = directory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        Self.generated = directory.path
        atexit { if let dir = DaemonMedia.generated { try? FileManager.default.removeItem(atPath: dir) } }
        func path(_ name: String) -> URL { directory.appendingPathComponent(name) }
        let exact = ["-fflags", "+bitexact", "-flags:a", "+bitexact"]
        func ffmpeg(_ args: [String]) throws { try ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-y"] + args) }
        func tone(_ f: Int, seconds: Double, rate: Int = 44100) -> [String] {
            ["-f", "lavfi", "-i", "sine=frequency=\(f):sample_rate=\(rate):duration=\(seconds)"]
        }

        segments = path("segments.mp3")
        try ffmpeg(tone(440, seconds: 15) + tone(660, seconds: 15) + tone(880, seconds: 15) + tone(1100, seconds: 15)
                   + ["-filter_complex", "concat=n=4:v=0:a=1", "-c:a", "libmp3lame", "-b:a", "96k"] + exact + [segments.path])
        short = path("short.mp3")
        try ffmpeg(tone(550, seconds: 3) + ["-c:a", "libmp3lame", "-b:a", "128k"] + exact + [short.path])
        shortOgg = path("short.ogg")
        try ffmpeg(tone(990, seconds: 3, rate: 48000) + ["-c:a", "libvorbis"] + exact + [shortOgg.path])

        let whole = path("whole.m4a")
        try ffmpeg(tone(440, seconds: 3) + ["-c:a", "aac"] + exact + [whole.path])
        let data = try Data(contentsOf: whole)
        truncated = path("truncated.m4a")
        try data.prefix(data.count / 2).write(to: truncated)

        garbage = path("garbage.mp3")
        var generator = SplitMix64(seed: 42)   // a fixed seed: the same garbage every run
        try Data((0..<65536).map { _ in UInt8(truncatingIfNeeded: generator.next()) }).write(to: garbage)
    }
}
