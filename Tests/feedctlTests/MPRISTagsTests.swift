import Foundation
import TestSupport
import XCTest

/// A file's own tags (title, artist, album, date) and cover art, through the daemon's `status`
/// and MPRIS, as a desktop reads them with playerctl.
extension MPRISTests {
    func testAFilesTagsAndCoverArtReachStatusAndMPRIS() throws {
        let file = env.directory.appendingPathComponent("tagged.mp3")
        try ToneMedia.encode(ToneMedia.sine(440, seconds: 30) + ToneMedia.coverArt,
                             ["-map", "0:a", "-map", "1:v", "-c:a", "libmp3lame", "-c:v", "mjpeg", "-frames:v", "1",
                              "-disposition:v", "attached_pic", "-id3v2_version", "3",
                              "-metadata", "title=A Tagged Talk", "-metadata", "artist=The Speaker",
                              "-metadata", "album=Talks 2024", "-metadata", "date=2024"], to: file)
        let daemon = try startDaemon()
        let play = try daemon.cli(["play", file.path])
        XCTAssertEqual(play.status, 0, play.stderr)
        XCTAssertTrue(eventually(timeout: 10) { self.playerctl("status").output == "Playing" })

        let status = try daemon.status()
        XCTAssertEqual(status["title"] as? String, "A Tagged Talk", "the tag, not the file name")
        XCTAssertEqual(status["artist"] as? String, "The Speaker")

        XCTAssertEqual(playerctl("metadata", "xesam:title").output, "A Tagged Talk")
        XCTAssertEqual(playerctl("metadata", "xesam:artist").output, "The Speaker")
        XCTAssertEqual(playerctl("metadata", "xesam:album").output, "Talks 2024")
        XCTAssertEqual(playerctl("metadata", "xesam:contentCreated").output, "2024")
        let art = playerctl("metadata", "mpris:artUrl").output
        XCTAssertTrue(art.hasPrefix("file:///"), "mpris:artUrl: \(art)")
        let picture = try Data(contentsOf: URL(fileURLWithPath: String(art.dropFirst("file://".count))))
        XCTAssertEqual(Array(picture.prefix(3)), [0xFF, 0xD8, 0xFF], "the cover, a JPEG")
    }

    /// A library item is named by its feed; its publish date is the track's date.
    func testALibraryItemIsNamedByItsFeedWithItsDate() throws {
        let daemon = try startDaemon()
        _ = try playLibraryItem(daemon)
        XCTAssertEqual(playerctl("metadata", "xesam:title").output, "Episode A")
        XCTAssertEqual(playerctl("metadata", "xesam:artist").output, "Tone Show")
        XCTAssertEqual(playerctl("metadata", "xesam:contentCreated").output, "2026-03-02")
    }
}
