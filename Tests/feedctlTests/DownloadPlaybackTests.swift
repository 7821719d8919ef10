
import FeedModel
import Foundation
import LibrarySQLite
import LibraryStore
import TestSupport
import XCTest

/// A downloaded item plays from its file: downloaded over HTTP, then the server is stopped,
/// and the daemon plays the item anyway (its tone reaches the null sink).
final class DownloadPlaybackTests: DaemonTestCase {
    /// An item downloaded (with `downloadOptions`) from a server that is then stopped: from now
    /// on only its file can play.
    private func downloadedItem(_ downloadOptions: [String] = []) async throws -> Int64 {
        let server = try TestHTTPServer()
        try FileManager.default.copyItem(at: media.segments, to: server.root.appendingPathComponent("segments.mp3"))
        let library = try SQLiteLibrary(path: world.db)
        let show = try await library.addChannel(platform: .podcast, sourceURL: "", feedURL: server.url("/downloads.xml"),
                                          name: "Tones", now: 1).id
        _ = try await library.ingest(items: [Item(id: "dl-tones", title: "Tones", published: 1,
                                            enclosure: Enclosure(url: server.url("/segments.mp3"), type: "audio/mpeg"))],
                               channelID: show, now: 1)
        let first = try await library.feed(filter: FeedFilter(channelID: show), now: 1).first
        let id = try XCTUnwrap(first?.id)

        let downloaded = try feedctl(["download", String(id)] + downloadOptions)
        XCTAssertEqual(downloaded.status, 0, downloaded.stderr)
        let enclosure = server.url("/segments.mp3")
        server.stop()  // from now on the enclosure URL refuses connections
        XCTAssertNotEqual(try ProcessRunner.capture("/usr/bin/curl", ["-sS", "--max-time", "5", "-o", "/dev/null", enclosure]).status, 0)
        return id
    }

    private func assertPlaysItsFile(_ id: Int64) throws {
        let playing = try waitForStatus("item \(id) playing") { $0.string("status") == "playing" && ($0.double("position") ?? 0) > 0 }
        XCTAssertEqual(playing["item_id"] as? Int, Int(id))
        XCTAssertTrue(playing.isNull("error"), "\(playing)")
        assertTone(try record(1), 440, "the downloaded file's first segment")
    }

    func testDownloadedItemPlaysWithTheServerGone() async throws {
        let id = try await downloadedItem()
        try startDaemon()
        try succeed("play", String(id))
        try assertPlaysItsFile(id)
    }

    /// `play --media-dir DIR` starts the daemon with that media directory: it plays the file
    /// downloaded there.
    func testTheDaemonPlayStartsPlaysFromTheGivenMediaDirectory() async throws {
        let directory = world.directory.appendingPathComponent("episodes-\(UUID().uuidString.prefix(6))").path
        let id = try await downloadedItem(["--media-dir", directory])
        try succeed("play", String(id), "--media-dir", directory)
        try assertPlaysItsFile(id)
    }
}
