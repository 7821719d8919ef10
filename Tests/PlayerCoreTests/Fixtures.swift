import Foundation
import TestSupport

/// Test media generated with ffmpeg's bitexact lavfi sine source, once per test process.
final class Fixtures: @unchecked Sendable {
    static let shared: Result<Fixtures, Error> = Result { try Fixtures() }

    let directory: URL
    /// 60 s, 44.1 kHz mono MP3: 440 Hz 0–15 s, 660 Hz 15–30 s, 880 Hz 30–45 s, 1100 Hz 45–60 s
    /// (`ToneMedia.segmentFrequency(at:)`).
    let segments: URL
    /// Short tones, one per format, each at its own frequency (see `formats`).
    let formats: [(name: String, url: URL, frequency: Double)]
    /// 3 s 440 Hz MP3 (LAME, start_time ≈ 25 ms).
    let shortMP3: URL
    /// 3 s 1200 Hz MP3 whose ID3 tag carries a JPEG cover (the tag is longer than the bytes the
    /// decoder sniffs, as in most podcast episodes).
    let coverArtMP3: URL
    /// An M4A with its index at the end, cut in half: unplayable.
    let truncated: URL
    /// A 6 s M4A (index first) cut after about half its audio: plays, then ends early.
    let cutShort: URL
    /// Bytes that are no media at all.
    let garbage: URL

    private init() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("feedctl-media-\(UUID().uuidString.prefix(8))")
        self.directory = directory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        fixturesToRemove = directory.path
        atexit { if let path = fixturesToRemove { try? FileManager.default.removeItem(atPath: path) } }
        func path(_ name: String) -> URL { directory.appendingPathComponent(name) }

        segments = path("segments.mp3")
        try ToneMedia.writeSegments(to: segments)

        shortMP3 = path("tone.mp3")
        try ToneMedia.encode(ToneMedia.sine(440, seconds: 3), ["-c:a", "libmp3lame", "-b:a", "128k"], to: shortMP3)
        var formats: [(String, URL, Double)] = [("mp3", shortMP3, 440)]
        let specs: [(String, String, Int, Int, [String])] = [
            ("m4a", "tone.m4a", 550, 48000, ["-c:a", "aac", "-ac", "2", "-movflags", "+faststart"]),
            ("opus", "tone.opus", 620, 48000, ["-c:a", "libopus", "-ac", "2"]),
            ("ogg", "tone.ogg", 740, 22050, ["-c:a", "libvorbis"]),
            ("flac", "tone.flac", 830, 96000, ["-c:a", "flac"]),
            ("wav", "tone.wav", 990, 8000, ["-c:a", "pcm_s16le"]),
            ("aac", "tone.aac", 500, 44100, ["-c:a", "aac", "-f", "adts"]),
            ("webm", "tone.webm", 880, 48000, ["-c:a", "libopus", "-f", "webm"]),
        ]
        for (name, file, f, rate, codec) in specs {
            let url = path(file)
            try ToneMedia.encode(ToneMedia.sine(f, rate: rate, seconds: 3), codec, to: url)
            formats.append((name, url, Double(f)))
        }
        coverArtMP3 = path("cover.mp3")
        try ToneMedia.encode(ToneMedia.sine(1200, seconds: 3) + ToneMedia.coverArt,
                             ["-map", "0:a", "-map", "1:v", "-c:a", "libmp3lame", "-c:v", "mjpeg", "-frames:v", "1",
                              "-disposition:v", "attached_pic", "-id3v2_version", "3"], to: coverArtMP3)
        formats.append(("mp3 with cover art", coverArtMP3, 1200))
        self.formats = formats

        truncated = path("truncated.m4a")
        try ToneMedia.writeTruncatedM4A(to: truncated)

        let long = path("long.m4a")
        try ToneMedia.encode(ToneMedia.sine(440, seconds: 6), ["-c:a", "aac", "-movflags", "+faststart"], to: long)
        let longData = try Data(contentsOf: long)
        cutShort = path("cut-short.m4a")
        try longData.prefix(longData.count / 2).write(to: cutShort)

        garbage = path("garbage.mp3")
        try ToneMedia.writeGarbage(to: garbage)
    }
}

/// The per-process media directory, removed when the test process exits.
nonisolated(unsafe) private var fixturesToRemove: String?
