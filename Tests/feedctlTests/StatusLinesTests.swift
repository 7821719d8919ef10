import Foundation
import TestSupport
import XCTest

/// What `status --follow` and the sleep timer print.
final class StatusLinesTests: DaemonTestCase {
    /// A sleep timer's fade changes the volume four times a second; followers used to print a
    /// line for each of those events (the text ones all alike) on top of the 1 Hz ticks.
    func testFollowPrintsChangesOnlyAndIsNotFloodedByTheFade() throws {
        try startDaemon()
        try succeed("play", media.segments.path)
        try waitForStatus("playing") { $0.string("status") == "playing" }
        let binary = try Self.feedctlBinary().path
        let text = try ProcessRunner.start(binary, ["status", "--follow"], environment: world.environment)
        let json = try ProcessRunner.start(binary, ["status", "--follow", "--json"], environment: world.environment)
        let started = Date()
        // The whole timer is its fade: 10 s of volume steps, then the stop.
        try succeed("sleep", "10s")
        try waitForStatus(timeout: 20, "stopped by the sleep timer") { $0.string("status") == "stopped" }
        Thread.sleep(forTimeInterval: 0.5)  // the stop's own event reaches the followers
        let elapsed = Date().timeIntervalSince(started)
        text.signal(SIGTERM)
        json.signal(SIGTERM)
        let textLines = try text.wait(timeout: 10).stdout.split(separator: "\n").map(String.init)
        let jsonLines = try json.wait(timeout: 10).stdout.split(separator: "\n").map(String.init)

        for (name, lines) in [("text", textLines), ("json", jsonLines)] {
            for (a, b) in zip(lines, lines.dropFirst()) {
                XCTAssertNotEqual(a, b, "\(name): the same line twice in a row:\n\(lines.joined(separator: "\n"))")
            }
            // About a line a second (ticks) plus a few changes (the sleep timer, the stop): the
            // fade's ~40 volume events add nothing more.
            XCTAssertLessThanOrEqual(Double(lines.count), elapsed + 5,
                                     "\(name): \(lines.count) lines in \(elapsed) s:\n\(lines.joined(separator: "\n"))")
            XCTAssertGreaterThanOrEqual(Double(lines.count), elapsed / 2, "\(name): ticks missing:\n\(lines.joined(separator: "\n"))")
        }
        XCTAssertTrue(textLines.last?.hasPrefix("[stopped]") == true, textLines.joined(separator: "\n"))
        let last = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data((jsonLines.last ?? "").utf8)) as? [String: Any])
        XCTAssertEqual(last.string("status"), "stopped")
        XCTAssertEqual(last.double("volume"), 1, "the volume restored after the fade")
    }

    /// What `status` prints comes from the world (a feed's titles, a file's tags): control
    /// characters that would retitle or clear the terminal never reach it (issue 14 item 8). A
    /// library item's title keeps them in `status --json` and is cleaned on the terminal; a file's
    /// tags are cleaned where they are read.
    func testTerminalEscapesInTitlesAndTagsAreNotPrinted() throws {
        func controls(_ text: String) -> [UInt32] {
            text.unicodeScalars.filter { (0x7F...0x9F).contains($0.value) || ($0.value < 0x20 && $0 != "\n") }.map(\.value)
        }
        let server = try TestHTTPServer(root: world.directory.appendingPathComponent("hostile-www"))
        defer { server.stop() }
        try server.write("short.mp3", Data(contentsOf: media.short))
        try server.write("feed.xml", Data("""
            <?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>Evil\u{9D}0;owned\u{9C} Show</title>
            <item><title>Loud\u{9B}31m episode</title><guid>loud</guid>
              <enclosure url="\(server.url("/short.mp3"))" type="audio/mpeg" length="0"/></item></channel></rss>
            """.utf8))
        try succeed("channel", "add", server.url("/feed.xml"))
        let listed = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(try succeed("feed", "--json").utf8)) as? [[String: Any]])
        let id = try XCTUnwrap((listed.first?["id"] as? NSNumber)?.stringValue)
        try startDaemon()
        try succeed("play", id)
        let item = try waitForStatus("playing the item") { $0.string("status") == "playing" && $0.string("title") != nil }
        XCTAssertEqual(item.string("title"), "Loud\u{9B}31m episode", "the JSON keeps the title as it is")
        let itemText = try succeed("status")
        XCTAssertEqual(controls(itemText), [], "status printed control characters: \(itemText.debugDescription)")
        XCTAssertTrue(itemText.contains("Loud\u{FFFD}31m episode — Evil\u{FFFD}0;owned\u{FFFD} Show"), itemText.debugDescription)

        let file = world.directory.appendingPathComponent("hostile-tags.mp3")
        try ToneMedia.encode(ToneMedia.sine(440, seconds: 20),
                             ["-c:a", "libmp3lame", "-id3v2_version", "4",
                              "-metadata", "title=Talk\u{1B}]0;owned\u{07} one", "-metadata", "artist=\u{9B}2JSpeaker"], to: file)
        try succeed("play", file.path)
        let tagged = try waitForStatus("playing the tagged file") { $0.string("title")?.hasPrefix("Talk") == true }
        XCTAssertEqual(tagged.string("title"), "Talk]0;owned one", "control characters are dropped from tags")
        XCTAssertEqual(tagged.string("artist"), "2JSpeaker")
        let tagText = try succeed("status")
        XCTAssertEqual(controls(tagText), [], "status printed control characters: \(tagText.debugDescription)")
    }

    /// `sleep 25h` stops playback tomorrow: the time alone would say today.
    func testASleepTimerNotEndingTodayShowsItsDate() throws {
        try startDaemon()
        try succeed("play", media.segments.path)
        let message = try succeed("sleep", "25h")
        let armed = try status()
        let at = try XCTUnwrap(armed.double("sleep_at"))
        let day = DateFormatter()
        day.dateFormat = "yyyy-MM-dd"
        day.timeZone = .current
        let date = day.string(from: Date(timeIntervalSince1970: at))
        XCTAssertTrue(message.hasPrefix("sleep: playback stops at \(date) "), message)
        XCTAssertTrue(try succeed("status").contains("sleep at \(date) "), "status shows the date too")

        // A stop later today shows the time alone.
        let soon = try succeed("sleep", "30m")
        let soonAt = try XCTUnwrap(try status().double("sleep_at"))
        let sameDay = day.string(from: Date(timeIntervalSince1970: soonAt)) == day.string(from: Date())
        XCTAssertEqual(soon.contains(day.string(from: Date(timeIntervalSince1970: soonAt))), !sameDay, soon)
    }
}
