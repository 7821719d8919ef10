@testable import Downloads
import FeedModel
import Foundation
import LibrarySQLite
import TestSupport
import XCTest

/// Issue 13, bug 1: a download belongs to its item by a key that cannot collide. Ids are never
/// reused now; a file named before that (`<id>-<title>`) is only taken for an item's download
/// when it was written after the item was discovered.
final class DownloadKeyTests: XCTestCase {
    private var server: TestHTTPServer!
    private var lib: TestLibrary!
    private var store: DownloadStore!
    private let media: [UInt8] = (0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 13) }

    override func setUpWithError() throws {
        server = try TestHTTPServer()
        try Data(media).write(to: server.root.appendingPathComponent("ep.mp3"))
        lib = try TestLibrary()
        store = DownloadStore(directory: lib.dir.file("media"))
    }

    override func tearDown() { server.stop() }

    /// An episode discovered now (so file times can be before or after it).
    private func episode(_ itemID: String, title: String, channel: Int64) async throws -> Int64 {
        let enclosure = Enclosure(url: server.url("/ep.mp3"), type: "audio/mpeg", length: nil)
        _ = try await lib.library.ingest(items: [Item(id: itemID, title: title, published: 1000, enclosure: enclosure)],
                                         channelID: channel, now: Clock.now())
        return try await lib.library.id(of: itemID)
    }

    /// A file as an older feedctl left it, last written `age` seconds ago.
    private func legacyFile(_ name: String, age: TimeInterval, bytes: Int = 100) throws -> String {
        try store.createDirectory()
        let path = store.directory + "/" + name
        try Data(repeating: 7, count: bytes).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -age)], ofItemAtPath: path)
        return path
    }

    func testAnOldFileOfAReusedIDIsNotTheNewItemsDownload() async throws {
        let channel = try await lib.library.addTestChannel("new show")
        let id = try await episode("n1", title: "New episode", channel: channel)
        // A removed channel's episode that had the same id, downloaded a day before this item existed.
        let stale = try legacyFile("\(id)-Old episode.mp3", age: 86_400)

        XCTAssertNil(store.completedFile(item: id), "the player must not play the stale file")
        let results = await Downloader(catalog: lib.library, store: store).download(ids: [id])
        XCTAssertEqual(results.map(\.status), [.downloaded], "fetched afresh, not 'already there'")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store.completedFile(item: id) ?? "")), Data(media))
        XCTAssertTrue(FileManager.default.fileExists(atPath: stale), "not ours to delete")
        let listing = try await store.listing(in: lib.library)
        XCTAssertEqual(listing.map(\.path).sorted(), [stale, store.directory + "/\(id)_New episode.mp3"].sorted())
        XCTAssertEqual(listing.first { $0.path == stale }?.title, nil, "listed as nobody's")
        XCTAssertEqual(try store.remove(item: id).map(\.path), [store.directory + "/\(id)_New episode.mp3"])
        XCTAssertTrue(FileManager.default.fileExists(atPath: stale))
    }

    func testAnOldFileWrittenAfterItsItemWasDiscoveredIsAdopted() async throws {
        let channel = try await lib.library.addTestChannel("show")
        let id = try await episode("e1", title: "Kept", channel: channel)
        _ = try legacyFile("\(id)-Kept.mp3", age: 0, bytes: 1234)

        let results = await Downloader(catalog: lib.library, store: store).download(ids: [id])
        XCTAssertEqual(results.map(\.status), [.already])
        XCTAssertEqual(results.first?.path, store.directory + "/\(id)_Kept.mp3", "renamed to the current form")
        XCTAssertEqual(store.completedFile(item: id), store.directory + "/\(id)_Kept.mp3")
        XCTAssertEqual(try server.stats().hits["/ep.mp3"], nil)
    }

    func testRemovingAChannelsFilesSaysWhatWasFreed() async throws {
        let channel = try await lib.library.addTestChannel("show")
        let a = try await episode("a", title: "A", channel: channel)
        let b = try await episode("b", title: "B", channel: channel)
        let downloader = Downloader(catalog: lib.library, store: store)
        _ = await downloader.download(ids: [a])
        let items = try await lib.library.itemIDs(channelID: channel)
        XCTAssertEqual(items, [a, b])
        let (removed, errors) = store.remove(items: items)
        XCTAssertEqual(errors, [])
        XCTAssertEqual(removed.map(\.bytes), [Int64(media.count)])
        XCTAssertEqual(try store.entries(), [])
    }

    func testABadIDDownloadsNothing() async throws {
        let channel = try await lib.library.addTestChannel("show")
        let good = try await episode("g", title: "Good", channel: channel)
        _ = try await lib.library.ingest(items: [Item(id: "text", title: "Just text")], channelID: channel, now: 2000)
        let text = try await lib.library.id(of: "text")
        let downloader = Downloader(catalog: lib.library, store: store)
        guard case .failure(let bad) = try await downloader.check(ids: [good, 9999, text]) else {
            return XCTFail("expected the bad ids to be refused")
        }
        XCTAssertEqual(bad.errors.map(\.description), [
            "item 9999: not in the library",
            "item \(text): \"Just text\" has no enclosure to download (only podcast episodes can be downloaded)",
        ])
        guard case .success(let items) = try await downloader.check(ids: [good, good]) else { return XCTFail("good id refused") }
        XCTAssertEqual(items.map(\.id), [good])
        XCTAssertEqual(try server.stats().hits["/ep.mp3"], nil)
    }
}
