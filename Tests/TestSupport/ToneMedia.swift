import Foundation

/// Deterministic test media from ffmpeg's lavfi sine source with bitexact output (as in
/// shared/recipes/headless-audio.md): the same bytes on every run.
public enum ToneMedia {
    /// `-f lavfi -i sine=…`: one ffmpeg input, `seconds` of `frequency` Hz at `rate`.
    public static func sine(_ frequency: Int, rate: Int = 44100, seconds: Double) -> [String] {
        ["-f", "lavfi", "-i", "sine=frequency=\(frequency):sample_rate=\(rate):duration=\(seconds)"]
    }

    /// A second ffmpeg input: one 320×240 test-pattern frame, to attach as cover art.
    public static let coverArt = ["-f", "lavfi", "-i", "testsrc=size=320x240:rate=1:duration=1"]

    /// Runs ffmpeg on `inputs` with `options` (filters, codec) into `output`, bitexact.
    public static func encode(_ inputs: [String], _ options: [String], to output: URL) throws {
        try ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-y"] + inputs + options
                              + ["-fflags", "+bitexact", "-flags:a", "+bitexact", output.path])
    }

    /// A 60 s, 44.1 kHz mono MP3 whose tone changes every 15 s (see `segmentFrequency(at:)`), so
    /// a recording tells which part of the file was heard.
    public static func writeSegments(to output: URL) throws {
        try encode([440, 660, 880, 1100].flatMap { sine($0, seconds: 15) },
                   ["-filter_complex", "concat=n=4:v=0:a=1", "-c:a", "libmp3lame", "-b:a", "96k"], to: output)
    }

    /// The segments file's tone at `seconds`: 440 Hz 0–15 s, 660 Hz 15–30 s, 880 Hz 30–45 s,
    /// 1100 Hz 45–60 s.
    public static func segmentFrequency(at seconds: Double) -> Double {
        [440, 660, 880, 1100][min(3, max(0, Int(seconds / 15)))]
    }

    /// 3 s of 440 Hz AAC in an M4A with its index at the end, cut in half: unplayable.
    public static func writeTruncatedM4A(to output: URL) throws {
        let whole = output.deletingLastPathComponent().appendingPathComponent("whole-" + output.lastPathComponent)
        try encode(sine(440, seconds: 3), ["-c:a", "aac"], to: whole)
        let data = try Data(contentsOf: whole)
        try data.prefix(data.count / 2).write(to: output)
    }

    /// 64 KiB of fixed-seed SplitMix64 bytes: no media at all, the same every run.
    public static func writeGarbage(to output: URL) throws {
        var generator = SplitMix64(seed: 42)
        try Data((0..<65536).map { _ in UInt8(truncatingIfNeeded: generator.next()) }).write(to: output)
    }
}
