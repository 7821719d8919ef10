import Foundation
import NowPlaying
import TestSupport
import XCTest
@testable import PlayerCore

/// Three 5 s chapters, each its own tone, in MP3 (ID3 CHAP), M4A (MP4 chapters) and Opus
/// (CHAPTERxxx comments), made with ffmpeg and an ffmetadata file.
final class ChapterTests: PulseTestCase {
    static let titles = ["Intro", "Middle part", "The End"]
    static let tones: [Double] = [440, 660, 880]
    nonisolated(unsafe) static var made: [(name: String, url: URL)]?

    private func chapterFiles() throws -> [(name: String, url: URL)] {
        if let made = Self.made { return made }
        let dir = media.directory
        let meta = dir.appendingPathComponent("chapters.ffmeta")
        var text = ";FFMETADATA1\ntitle=Chaptered\n"
        for (i, title) in Self.titles.enumerated() {
            text += "[CHAPTER]\nTIMEBASE=1/1000\nSTART=\(i * 5000)\nEND=\((i + 1) * 5000)\ntitle=\(title)\n"
        }
        try text.write(to: meta, atomically: true, encoding: .utf8)
        var inputs: [String] = []
        for tone in Self.tones { inputs += ["-f", "lavfi", "-i", "sine=frequency=\(Int(tone)):sample_rate=48000:duration=5"] }
        let concat = ["-filter_complex", "concat=n=3:v=0:a=1[a]", "-map", "[a]"]
        let specs: [(String, [String])] = [("mp3", ["-c:a", "libmp3lame", "-b:a", "96k"]),
                                           ("m4a", ["-c:a", "aac", "-movflags", "+faststart"]),
                                           ("opus", ["-c:a", "libopus", "-b:a", "64k"])]
        var out: [(String, URL)] = []
        for (ext, codec) in specs {
            let url = dir.appendingPathComponent("chapters.\(ext)")
            try ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-y"] + inputs + ["-i", meta.path]
                                  + concat + ["-map_metadata", "3", "-map_chapters", "3"] + codec
                                  + ["-fflags", "+bitexact", "-flags:a", "+bitexact", url.path])
            out.append((ext, url))
        }
        Self.made = out
        return out
    }

    func testEmbeddedChaptersOfEveryFormat() throws {
        let player = makePlayer()
        for (name, url) in try chapterFiles() {
            player.send(.play(request(url, key: name)))
            XCTAssertTrue(eventually { player.snapshot.key == .file(name) && player.snapshot.status == .playing }, name)
            let list = player.chapters
            XCTAssertEqual(list.source, .embedded, name)
            XCTAssertEqual(list.chapters.map(\.title), Self.titles, name)
            for (i, chapter) in list.chapters.enumerated() {
                XCTAssertEqual(chapter.start, Double(i * 5), accuracy: 0.05, "\(name) chapter \(i + 1) start")
                XCTAssertEqual(chapter.end ?? -1, Double(i * 5 + 5), accuracy: 0.05, "\(name) chapter \(i + 1) end")
            }
            XCTAssertTrue(eventually { player.nowPlaying.state.chapter == "Intro" }, "\(name): \(player.nowPlaying.state)")
        }
    }

    func testJumpingToTheNextChapterPlaysItsTone() throws {
        for (name, url) in try chapterFiles() {
            let player = makePlayer()
            player.send(.play(request(url, key: name)))
            waitUntilAudible(player, heard: 0.5)
            assertTone(try record(0.6), 440, "\(name): chapter 1")
            let list = player.chapters
            let next = try XCTUnwrap(list.target(.next, from: player.position))
            XCTAssertEqual(next, 1)
            player.send(.seek(.absolute(list.chapters[next].start)))
            waitUntilAudible(player, from: 5, heard: 0.3)
            XCTAssertTrue(eventually { player.nowPlaying.state.chapter == "Middle part" }, "\(player.nowPlaying.state)")
            assertTone(try record(0.6), 660, "\(name): chapter 2 after `next`")
            player.send(.seek(.absolute(list.chapters[2].start)))
            waitUntilAudible(player, from: 10, heard: 0.3)
            XCTAssertEqual(player.nowPlaying.state.chapter, "The End")
            assertTone(try record(0.6), 880, "\(name): chapter 3")
            player.shutdown()
        }
    }

    func testPodcastChaptersReplaceEmbeddedOnesForTheirItemOnly() throws {
        let files = try chapterFiles()
        let player = makePlayer()
        player.send(.play(request(files[0].url, key: "a")))
        XCTAssertTrue(eventually { player.snapshot.status == .playing })
        player.send(.chapters(ChapterList([Chapter(start: 0, title: "Cold open"), Chapter(start: 2, title: "News")],
                                          source: .podcast), for: .file("a")))
        XCTAssertTrue(eventually { player.chapters.source == .podcast })
        XCTAssertEqual(player.chapters.chapters,
                       [Chapter(start: 0, end: 2, title: "Cold open"), Chapter(start: 2, end: player.snapshot.duration, title: "News")])
        XCTAssertTrue(eventually { player.nowPlaying.state.chapter == "Cold open" })
        player.send(.seek(.absolute(3)))
        XCTAssertTrue(eventually { player.nowPlaying.state.chapter == "News" })
        // Meant for an item no longer playing: ignored.
        player.send(.chapters(ChapterList([Chapter(start: 0, title: "Stale")], source: .podcast), for: .file("b")))
        player.send(.seek(.absolute(0.5)))
        XCTAssertTrue(eventually { player.nowPlaying.state.chapter == "Cold open" })
        XCTAssertEqual(player.chapters.chapters.first?.title, "Cold open")
    }

    func testTheChapterFollowsPlaybackAcrossAStart() async throws {
        let url = try chapterFiles()[0].url
        let player = makePlayer()
        let events = player.nowPlaying.events()
        player.send(.play(request(url, key: "mp3", startAt: 4)))
        let crossed = eventually(timeout: 8) { player.nowPlaying.state.chapter == "Middle part" }
        XCTAssertTrue(crossed, "\(player.nowPlaying.state)")
        XCTAssertGreaterThanOrEqual(player.position, 5)
        player.shutdown()
        guard crossed else { return } // the event stream stays open: only read events that exist
        var titles: [String?] = []
        for await event in events {
            if case .chapterChanged(let title) = event { titles.append(title) }
            if titles.count == 2 { break }
        }
        XCTAssertEqual(titles, ["Intro", "Middle part"])
    }

    func testAFileWithoutChaptersHasNone() throws {
        let player = makePlayer()
        player.send(.play(request(media.shortMP3)))
        XCTAssertTrue(eventually { player.snapshot.status == .playing })
        XCTAssertTrue(player.chapters.isEmpty)
        XCTAssertNil(player.chapters.source)
        XCTAssertNil(player.nowPlaying.state.chapter)
    }
}

final class ChapterListTests: XCTestCase {
    let list = ChapterList([Chapter(start: 30, title: "C"), Chapter(start: 0, title: "A"), Chapter(start: 10, title: "B")],
                           source: .podcast, duration: 60)

    func testSortedWithEndsFromTheNextStart() {
        XCTAssertEqual(list.chapters, [Chapter(start: 0, end: 10, title: "A"), Chapter(start: 10, end: 30, title: "B"),
                                       Chapter(start: 30, end: 60, title: "C")])
    }

    func testIndexAtPosition() {
        XCTAssertEqual(list.index(at: 0), 0)
        XCTAssertEqual(list.index(at: 9.9), 0)
        XCTAssertEqual(list.index(at: 10), 1)
        XCTAssertEqual(list.index(at: 59), 2)
        XCTAssertNil(ChapterList([Chapter(start: 5, title: "late")]).index(at: 1))
    }

    func testJumps() {
        XCTAssertEqual(list.target(.next, from: 12), 2)
        XCTAssertNil(list.target(.next, from: 35), "no chapter after the last")
        XCTAssertEqual(list.target(.previous, from: 11), 0, "just after a start: the chapter before")
        XCTAssertEqual(list.target(.previous, from: 20), 1, "later: the start of the current one")
        XCTAssertEqual(list.target(.previous, from: 1), 0)
        XCTAssertEqual(list.target(.number(3), from: 0), 2)
        XCTAssertNil(list.target(.number(4), from: 0))
        XCTAssertNil(list.target(.number(0), from: 0))
        XCTAssertNil(ChapterList().target(.next, from: 0))
    }
}
