import Foundation
import NowPlaying
import TestSupport
import XCTest
@testable import PlayerCore

/// A file's own tags and cover art reach NowPlaying (as mpv shows them), without taking the
/// place of what a library item's feed says.
final class MediaTagsTests: PulseTestCase {
    var art: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        art = FileManager.default.temporaryDirectory.appendingPathComponent("feedctl-art-\(UUID().uuidString.prefix(8))")
    }

    override func tearDown() {
        super.tearDown()
        try? FileManager.default.removeItem(at: art)
    }

    private func tagged(_ name: String, _ inputs: [String], _ options: [String]) throws -> URL {
        let file = media.directory.appendingPathComponent(name)
        if !FileManager.default.fileExists(atPath: file.path) {
            try ToneMedia.encode(inputs, options + ["-metadata", "title=Tagged Title", "-metadata", "artist=Tag Artist",
                                                    "-metadata", "album=Tag Album", "-metadata", "date=2024-05-01"],
                                 to: file)
        }
        return file
    }

    private func artPlayer() -> Player {
        let player = Player(configuration: PlayerConfiguration(output: .pulse(server: pulse.server), networkTimeout: 5,
                                                               artDirectory: art.path))
        players.append(player)
        return player
    }

    func testAFilesTagsAndCoverArtAreItsMetadata() throws {
        let mp3 = try tagged("tagged-cover.mp3", ToneMedia.sine(440, seconds: 3) + ToneMedia.coverArt,
                             ["-map", "0:a", "-map", "1:v", "-c:a", "libmp3lame", "-c:v", "mjpeg", "-frames:v", "1",
                              "-disposition:v", "attached_pic", "-id3v2_version", "3"])
        let player = artPlayer()
        player.send(.play(PlayRequest(key: .file(mp3.path), source: .localFile(mp3.path),
                                      metadata: TrackMetadata(key: .file(mp3.path), title: "tagged-cover.mp3"))))
        waitUntilAudible(player)
        let metadata = try XCTUnwrap(player.nowPlaying.state.metadata)
        XCTAssertEqual(metadata.title, "Tagged Title", "the tag, not the file name")
        XCTAssertEqual(metadata.artist, "Tag Artist")
        XCTAssertEqual(metadata.album, "Tag Album")
        XCTAssertEqual(metadata.date, "2024-05-01")
        let artURL = try XCTUnwrap(metadata.artURL)
        XCTAssertTrue(artURL.hasPrefix("file://" + art.path + "/cover-"), artURL)
        let picture = try Data(contentsOf: URL(fileURLWithPath: String(artURL.dropFirst("file://".count))))
        XCTAssertEqual(Array(picture.prefix(3)), [0xFF, 0xD8, 0xFF], "a JPEG")
    }

    func testOpusCommentsAreRead() throws {
        let opus = try tagged("tagged.opus", ToneMedia.sine(620, rate: 48000, seconds: 3), ["-c:a", "libopus"])
        let player = artPlayer()
        player.send(.play(request(opus, key: opus.path)))
        waitUntilAudible(player)
        let metadata = try XCTUnwrap(player.nowPlaying.state.metadata)
        XCTAssertEqual(metadata.title, "Tagged Title")
        XCTAssertEqual(metadata.artist, "Tag Artist")
        XCTAssertEqual(metadata.album, "Tag Album")
        XCTAssertNil(metadata.artURL, "no picture in it")
    }

    func testALibraryItemKeepsItsFeedsTitleAndChannel() throws {
        let mp3 = try tagged("tagged-item.mp3", ToneMedia.sine(440, seconds: 3), ["-c:a", "libmp3lame"])
        let player = artPlayer()
        let feed = TrackMetadata(key: .item(5), title: "Episode 5 (the feed's)", artist: "The Channel")
        player.send(.play(PlayRequest(key: .item(5), source: .localFile(mp3.path), metadata: feed)))
        waitUntilAudible(player)
        let metadata = try XCTUnwrap(player.nowPlaying.state.metadata)
        XCTAssertEqual(metadata.title, "Episode 5 (the feed's)")
        XCTAssertEqual(metadata.artist, "The Channel")
        XCTAssertEqual(metadata.album, "Tag Album", "what the feed left out comes from the tags")
        XCTAssertEqual(metadata.date, "2024-05-01")
    }
}
