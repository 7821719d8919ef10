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

    private init() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("feedctl-daemon-media-\(UUID().uuidString.prefix(8))")
        self.directory = directory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        Self.generated = directory.path
        atexit { if let dir = DaemonMedia.generated { try? FileManager.default.removeItem(atPath: dir) } }
        func path(_ name: String) -> URL { directory.appendingPathComponent(name) }

        segments = path("segments.mp3")
        try ToneMedia.writeSegments(to: segments)
        short = path("short.mp3")
        try ToneMedia.encode(ToneMedia.sine(550, seconds: 3), ["-c:a", "libmp3lame", "-b:a", "128k"], to: short)
        shortOgg = path("short.ogg")
        try ToneMedia.encode(ToneMedia.sine(990, rate: 48000, seconds: 3), ["-c:a", "libvorbis"], to: shortOgg)
        truncated = path("truncated.m4a")
        try ToneMedia.writeTruncatedM4A(to: truncated)
        garbage = path("garbage.mp3")
        try ToneMedia.writeGarbage(to: garbage)
    }
}
