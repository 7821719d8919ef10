import Foundation
import TestSupport
import XCTest

/// `feedctl chapters` / `chapter` against a real daemon: a podcast episode whose feed names a
/// chapters file (served from 127.0.0.1) and whose MP3 also embeds other chapters; and an
/// episode with embedded chapters only.
extension MPRISTests {
    private func makeChapterShow() throws -> String {
        let www = env.directory.appendingPathComponent("www")
        let meta = www.appendingPathComponent("embedded.ffmeta")
        var text = ";FFMETADATA1\n"
        for i in 0..<3 { text += "[CHAPTER]\nTIMEBASE=1/1000\nSTART=\(i * 5000)\nEND=\((i + 1) * 5000)\ntitle=E\(i + 1)\n" }
        try text.write(to: meta, atomically: true, encoding: .utf8)
        var inputs: [String] = []
        for f in [440, 660, 880] { inputs += ["-f", "lavfi", "-i", "sine=frequency=\(f):sample_rate=44100:duration=5"] }
        try ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-y"] + inputs
                              + ["-i", meta.path, "-filter_complex", "concat=n=3:v=0:a=1[a]", "-map", "[a]",
                                 "-map_metadata", "3", "-map_chapters", "3", "-c:a", "libmp3lame", "-b:a", "96k",
                                 www.appendingPathComponent("chap.mp3").path])
        try Data("""
            {"version":"1.2.0","chapters":[{"startTime":0,"title":"Intro"},{"startTime":4,"title":"Part two"},
            {"startTime":7,"title":"Hidden","toc":false},{"startTime":10,"title":"Finale"}]}
            """.utf8).write(to: www.appendingPathComponent("chap.json"))
        let base = "http://127.0.0.1:\(env.port)"
        let feed = """
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0" xmlns:podcast="https://podcastindex.org/namespace/1.0"><channel>
            <title>Chapter Show</title><link>\(base)/</link><description>Chapters</description>
            <item><title>With JSON</title><guid>ch-json</guid><pubDate>Tue, 03 Mar 2026 10:00:00 GMT</pubDate>
            <enclosure url="\(base)/chap.mp3" type="audio/mpeg" length="1000"/>
            <podcast:chapters url="\(base)/chap.json" type="application/json+chapters"/></item>
            <item><title>Embedded only</title><guid>ch-embedded</guid><pubDate>Mon, 02 Mar 2026 10:00:00 GMT</pubDate>
            <enclosure url="\(base)/chap.mp3" type="audio/mpeg" length="1000"/></item>
            </channel></rss>
            """
        try Data(feed.utf8).write(to: www.appendingPathComponent("chapter-feed.xml"))
        return base + "/chapter-feed.xml"
    }

    private func chapters(_ daemon: DaemonUnderTest) throws -> [String: Any] {
        let result = try daemon.cli(["chapters", "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    func testChaptersFromTheFeedWinAndJumpsLandOnChapterStarts() throws {
        let feedURL = try makeChapterShow()
        let daemon = try startDaemon()
        XCTAssertEqual(try daemon.cli(["channel", "add", feedURL], player: false).status, 0)
        let feed = try daemon.cli(["feed", "--json"], player: false)
        let items = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(feed.stdout.utf8)) as? [[String: Any]])
        func id(_ title: String) throws -> String {
            String(try XCTUnwrap(items.first { $0["title"] as? String == title }?["id"] as? Int))
        }

        XCTAssertEqual(try daemon.cli(["play", try id("With JSON")]).status, 0)
        var list = try chapters(daemon)
        XCTAssertEqual(list["source"] as? String, "podcast")
        XCTAssertEqual(list["current"] as? Int, 1)
        let entries = try XCTUnwrap(list["chapters"] as? [[String: Any]])
        XCTAssertEqual(entries.map { $0["title"] as? String }, ["Intro", "Part two", "Finale"])
        XCTAssertEqual(entries.map { $0["index"] as? Int }, [1, 2, 3])
        XCTAssertEqual(entries.map { $0["start"] as? Double }, [0, 4, 10])
        XCTAssertEqual(entries[0]["end"] as? Double, 4)
        XCTAssertEqual(try daemon.status()["chapter"] as? String, "Intro")

        let next = try daemon.cli(["chapter", "next"])
        XCTAssertEqual(next.status, 0, next.stderr)
        XCTAssertEqual(next.output, "chapter 2/3: Part two")
        let status = try daemon.status()
        XCTAssertEqual(status["chapter"] as? String, "Part two")
        // At chapter 2's start (4 s); the status is read a moment after the jump, so allow the
        // time it takes a loaded machine to answer, but never the previous chapter or far into this one.
        let position = status["position"] as? Double ?? -1
        XCTAssertTrue((3.5...6).contains(position), "position after `chapter next`: \(position)")
        let text = try daemon.cli(["chapters"]).stdout
        XCTAssertTrue(text.contains("* 2  0:04  Part two"), text)
        XCTAssertTrue(text.contains("  1  0:00  Intro"), text)

        let bad = try daemon.cli(["chapter", "9"])
        XCTAssertNotEqual(bad.status, 0)
        XCTAssertTrue(bad.stderr.contains("no chapter 9"), bad.stderr)

        // Cached in the library: gone from the server, still there on the next play.
        try FileManager.default.removeItem(at: env.directory.appendingPathComponent("www/chap.json"))
        XCTAssertEqual(try daemon.cli(["play", try id("Embedded only")]).status, 0)
        list = try chapters(daemon)
        XCTAssertEqual(list["source"] as? String, "embedded")
        XCTAssertEqual((list["chapters"] as? [[String: Any]])?.map { $0["title"] as? String }, ["E1", "E2", "E3"])
        XCTAssertEqual(try daemon.cli(["chapter", "3"]).output, "chapter 3/3: E3")
        XCTAssertEqual(try daemon.status()["chapter"] as? String, "E3")

        XCTAssertEqual(try daemon.cli(["play", try id("With JSON")]).status, 0)
        list = try chapters(daemon)
        XCTAssertEqual(list["source"] as? String, "podcast", "from the library's cache")
        XCTAssertEqual((list["chapters"] as? [[String: Any]])?.count, 3)
    }
}
