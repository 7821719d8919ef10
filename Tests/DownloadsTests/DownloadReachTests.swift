@testable import Downloads
import FeedModel
import Foundation
import LibrarySQLite
import TestSupport
import XCTest

/// Issue 26, item 1: an episode is downloaded within its channel's reach (`AddressReach`). A
/// channel a server user follows (public addresses only) does not get its enclosure fetched
/// from a name that resolves to a loopback address (`media.localhost`: libcurl resolves it to
/// 127.0.0.1 itself), by `download` or the daemon's automatic downloads; the owner's own does.
final class DownloadReachTests: XCTestCase {
    func testAnEnclosureOnAPrivateAddressIsDownloadedOnlyForTheOwnersOwnChannels() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        try server.write("ep.mp3", Data(repeating: 9, count: 10_000))
        let lib = try TestLibrary()
        let store = DownloadStore(directory: lib.dir.file("media"))
        let bobUser = try await lib.library.addUser(name: "bob", isAdmin: false, passwordHash: nil, now: 1)
        let bob = lib.library.acting(as: bobUser.id)
        let enclosure = Enclosure(url: "http://media.localhost:\(server.port)/ep.mp3", type: "audio/mpeg")
        var ids: [Int64] = []
        for (name, reach) in [("owner", AddressReach.anyAddress), ("bob", .publicOnly)] {
            let feed = "https://example.com/\(name).xml"
            let channel = try await lib.library.addChannel(platform: .podcast, sourceURL: feed, feedURL: feed, name: name, now: 1)
            if reach == .publicOnly {
                _ = try await bob.addChannel(platform: .podcast, sourceURL: feed, feedURL: feed, name: name, reach: reach, now: 1)
            }
            _ = try await lib.library.ingest(items: [Item(id: name, title: "\(name)'s episode", published: 100, enclosure: enclosure)],
                                             channelID: channel.id, now: Clock.now())
            ids.append(try await lib.library.id(of: name))
        }

        let results = await Downloader(catalog: lib.library, store: store).download(ids: ids)
        XCTAssertEqual(results.map(\.status), [.downloaded, .failed])
        let error = try XCTUnwrap(results[1].error)
        XCTAssertTrue(error.hasPrefix("item \(ids[1]): http://media.localhost:\(server.port)/ep.mp3: refused: ")
                      && error.contains(" is a local address"), error)
        XCTAssertNil(store.completedFile(item: ids[1]))
        XCTAssertEqual(try server.stats().hits["/ep.mp3"], 1, "only the owner's episode was requested")

        // The daemon's automatic downloads take the same path.
        let auto = try await Downloader(catalog: lib.library, store: store).auto(keep: 1)
        XCTAssertEqual(try server.stats().hits["/ep.mp3"], 1, "\(auto)")
        XCTAssertNil(store.completedFile(item: ids[1]))
    }
}
