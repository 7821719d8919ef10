@testable import Downloads
import FeedModel
import Foundation
import LibrarySQLite
import TestSupport
import XCTest

/// `Downloader` against a real HTTP server and a real library in a temp dir: exact bytes,
/// `.part` files and Range resumes, size checks, --auto's choice, list and remove.
final class DownloadTests: XCTestCase {
    private var server: TestHTTPServer!
    private var lib: TestLibrary!
    private var store: DownloadStore!
    /// 300 kB that are not all the same byte, so a misplaced range shows.
    private let media: [UInt8] = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 11) }

    override func setUpWithError() throws {
        server = try TestHTTPServer()
        try Data(media).write(to: server.root.appendingPathComponent("ep.mp3"))
        lib = try TestLibrary()
        store = DownloadStore(directory: lib.dir.file("media"))
    }

    override func tearDown() {
        server.stop()
    }

    private var library: SQLiteLibrary { lib.library }

    private func downloader(concurrency: Int = 3) -> Downloader {
        Downloader(catalog: library, store: store, concurrency: concurrency)
    }

    /// Adds an episode whose enclosure is `path` on the test server; returns its library id.
    private func episode(_ itemID: String, channel: Int64, title: String? = nil, path: String = "/ep.mp3",
                         length: Int64? = nil, published: Int64 = 1000) async throws -> Int64 {
        let enclosure = Enclosure(url: server.url(path), type: "audio/mpeg", length: length)
        _ = try await library.ingest(items: [Item(id: itemID, title: title ?? "Episode \(itemID)", published: published,
                                            enclosure: enclosure)], channelID: channel, now: 2000)
        return try await library.id(of: itemID)
    }

    private func files() throws -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: store.directory).sorted()) ?? []
    }

    private func bytes(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }

    func testDownloadCompletesWithExactBytes() async throws {
        let channel = try await library.addTestChannel("show")
        let id = try await episode("e1", channel: channel, title: "First light", length: Int64(media.count))
        let downloader = downloader()

        let results = await downloader.download(ids: [id])
        let expectedPath = store.directory + "/\(id)_First light.mp3"
        XCTAssertEqual(results, [DownloadResult(id: id, title: "First light", channel: "show", status: .downloaded,
                                                path: expectedPath, bytes: Int64(media.count))])
        XCTAssertEqual(try bytes(expectedPath), media)
        XCTAssertEqual(try files(), ["\(id)_First light.mp3"])  // no .part left

        // A second run finds the file and fetches nothing.
        let again = await downloader.download(ids: [id, id])
        XCTAssertEqual(again.map(\.status), [.already])
        XCTAssertEqual(try server.stats().hits["/ep.mp3"], 1)
    }

    func testInterruptedDownloadLeavesOnlyThePartThenResumesWithRange() async throws {
        let channel = try await library.addTestChannel("show")
        // No length in the feed: the server's Content-Length is the check.
        let id = try await episode("e1", channel: channel, title: "Cut", path: "/cut/ep.mp3?after=100000")
        let downloader = downloader()

        let first = await downloader.download(ids: [id])
        XCTAssertEqual(first.map(\.status), [.failed])
        XCTAssertEqual(first[0].error, "item \(id): \(server.url("/cut/ep.mp3?after=100000")): connection closed after 100000 of \(media.count) bytes")
        XCTAssertEqual(try files(), ["\(id)_Cut.mp3.part"])
        XCTAssertEqual(try bytes(store.directory + "/\(id)_Cut.mp3.part"), Array(media[..<100_000]))
        XCTAssertEqual(store.completedFile(item: id), nil)
        XCTAssertEqual(try store.entries(item: id).map(\.complete), [false])

        let second = await downloader.download(ids: [id])
        XCTAssertEqual(second.map(\.status), [.downloaded])
        XCTAssertEqual(try files(), ["\(id)_Cut.mp3"])
        XCTAssertEqual(try bytes(store.directory + "/\(id)_Cut.mp3"), media)
        let log = try server.stats(afterLogging: 2, of: "/cut/ep.mp3").log.filter { $0.path == "/cut/ep.mp3" }
        XCTAssertEqual(log.map(\.status), [200, 206])
        XCTAssertEqual(log.map(\.sent), [100_000, media.count - 100_000])  // only the rest crossed the wire
    }

    // Issue 13, bug 3: these two asserted the bug (a file whose size differed from the feed's
    // enclosure length was thrown away). The feed's length is a hint; the server decides.
    func testFileShorterThanTheEnclosureLengthIsKept() async throws {
        let channel = try await library.addTestChannel("show")
        let id = try await episode("e1", channel: channel, title: "Stale", length: Int64(media.count + 5))
        let results = await downloader().download(ids: [id])
        XCTAssertEqual(results.map(\.status), [.downloaded], results.first?.error ?? "")
        XCTAssertEqual(results.first?.bytes, Int64(media.count))
        XCTAssertEqual(try files(), ["\(id)_Stale.mp3"])
        XCTAssertEqual(try bytes(store.directory + "/\(id)_Stale.mp3"), media)
    }

    func testFileLongerThanTheEnclosureLengthIsKept() async throws {
        let channel = try await library.addTestChannel("show")
        let id = try await episode("e1", channel: channel, title: "Ads", length: 1000)
        let found = try await library.downloadItems(ids: [id]).first
        let item = try XCTUnwrap(found)
        let totals = Totals()
        let (entry, fetched) = try await downloader().download(item) { _, total in totals.add(total) }
        XCTAssertTrue(fetched)
        XCTAssertEqual(entry.bytes, Int64(media.count))
        XCTAssertEqual(try bytes(entry.path), media)
        // The progress total is the server's Content-Length, not the feed's stale 1000.
        XCTAssertEqual(Set(totals.all.compactMap { $0 }), [Int64(media.count)])
    }

    func testAServerThatSendsLessThanItAnnouncedKeepsThePartForLater() async throws {
        let channel = try await library.addTestChannel("show")
        let id = try await episode("e1", channel: channel, title: "Short", path: "/truncated")
        let results = await downloader().download(ids: [id])
        XCTAssertEqual(results.map(\.status), [.failed])
        XCTAssertEqual(store.completedFile(item: id), nil)
        XCTAssertEqual(try files(), ["\(id)_Short.mp3.part"])
    }

    func testSafeNamesForHostileTitles() async throws {
        XCTAssertEqual(DownloadName.make(id: 5, title: "../../etc/passwd", enclosureURL: "https://x/a.mp3", type: nil),
                       "5_-..-etc-passwd.mp3")
        XCTAssertEqual(DownloadName.make(id: 6, title: "A\u{0}B\nC\u{7}D\u{202E}3pm.exe", enclosureURL: "https://x/a", type: "audio/mpeg"),
                       "6_A B C D3pm.exe.mp3")
        XCTAssertEqual(DownloadName.make(id: 7, title: " .hidden ", enclosureURL: "https://x/a.M4A?x=1", type: nil), "7_hidden.m4a")
        XCTAssertEqual(DownloadName.make(id: 8, title: "...", enclosureURL: "https://x/a.part", type: nil), "8_.bin")
        XCTAssertEqual(DownloadName.make(id: 9, title: "x", enclosureURL: "https://x/feed", type: "video/mp4"), "9_x.mp4")
        let long = DownloadName.sanitizedTitle(String(repeating: "é", count: 200))
        XCTAssertEqual(long, String(repeating: "é", count: 40))  // 80 bytes exactly
        let emoji = DownloadName.sanitizedTitle(String(repeating: "🎙️ Talk 👨‍👩‍👧 ", count: 10))
        XCTAssertLessThanOrEqual(emoji.utf8.count, 80)
        XCTAssertTrue(String(repeating: "🎙️ Talk 👨‍👩‍👧 ", count: 10).hasPrefix(emoji))  // whole characters only
        XCTAssertEqual(emoji, String(repeating: "🎙️ Talk 👨‍👩‍👧 ", count: 2) + "🎙️ Talk")  // the family didn't fit

        // A real download with a hostile title lands inside the media directory.
        let channel = try await library.addTestChannel("show")
        let id = try await episode("evil", channel: channel, title: "../../\u{1B}[31m.." + String(repeating: "x", count: 300))
        let result = await downloader().download(ids: [id])
        let path = try XCTUnwrap(result.first?.path)
        XCTAssertEqual((path as NSString).deletingLastPathComponent, store.directory)
        let name = (path as NSString).lastPathComponent
        XCTAssertEqual(name, "\(id)_-..- [31m.." + String(repeating: "x", count: 67) + ".mp3")
        XCTAssertEqual(try bytes(path), media)
    }

    func testAutoKeepsExactlyTheNewestNPerPodcastChannel() async throws {
        let a = try await library.addTestChannel("a")
        let b = try await library.addTestChannel("b")
        let yt = try await library.addTestChannel("yt", platform: .youtube)
        let a1 = try await episode("a1", channel: a, path: "/ep.mp3?a1", published: 100)
        let a2 = try await episode("a2", channel: a, path: "/ep.mp3?a2", published: 300)
        let a3 = try await episode("a3", channel: a, path: "/ep.mp3?a3", published: 200)
        // The newest item of a has no enclosure: it can't count as one of the N.
        _ = try await library.ingest(items: [Item(id: "a4", title: "No media", published: 400)], channelID: a, now: 2000)
        let b1 = try await episode("b1", channel: b, path: "/ep.mp3?b1", published: 50)
        _ = try await library.ingest(items: [Item(id: "y1", title: "Video", url: "https://youtube.com/watch?v=1", published: 500,
                                            enclosure: Enclosure(url: server.url("/ep.mp3?y1")))], channelID: yt, now: 2000)
        let downloader = downloader()

        let report = try await downloader.auto(keep: 2)
        XCTAssertEqual(report.channels.map(\.items), [[a2, a3], [b1]])
        XCTAssertEqual(report.results.map(\.id), [a2, a3, b1])
        XCTAssertEqual(report.results.map(\.status), [.downloaded, .downloaded, .downloaded])
        XCTAssertEqual(Set(try store.entries().map(\.itemID)), [a2, a3, b1])
        XCTAssertEqual(report.pruned, [])

        // A newer episode: downloaded; without --prune the old ones stay.
        let a5 = try await episode("a5", channel: a, path: "/ep.mp3?a5", published: 500)
        let second = try await downloader.auto(keep: 2)
        XCTAssertEqual(second.results.map(\.status), [.downloaded, .already, .already])
        XCTAssertEqual(Set(try store.entries().map(\.itemID)), [a2, a3, a5, b1])

        // --prune deletes a's episodes beyond the newest 2, and nothing else.
        let third = try await downloader.auto(keep: 2, prune: true)
        XCTAssertEqual(third.pruned.map(\.itemID), [a3])
        XCTAssertEqual(Set(try store.entries().map(\.itemID)), [a2, a5, b1])
        XCTAssertFalse(try store.entries().contains { $0.itemID == a1 })
        XCTAssertEqual(try server.stats().hits["/ep.mp3"], 4)  // each episode fetched once
    }

    func testListAndRemove() async throws {
        let channel = try await library.addTestChannel("show")
        let done = try await episode("e1", channel: channel, title: "Done", length: Int64(media.count))
        let partial = try await episode("e2", channel: channel, title: "Half", path: "/cut/ep.mp3?after=5000")
        let downloader = downloader()
        _ = await downloader.download(ids: [done, partial])
        let dir = store.directory

        let listing = try await store.listing(in: library)
        XCTAssertEqual(listing, [
            DownloadListing(id: done, title: "Done", channel: "show", channelID: channel, path: dir + "/\(done)_Done.mp3",
                            bytes: Int64(media.count), expectedBytes: Int64(media.count), complete: true),
            DownloadListing(id: partial, title: "Half", channel: "show", channelID: channel, path: dir + "/\(partial)_Half.mp3.part",
                            bytes: 5000, expectedBytes: nil, complete: false),
        ])

        XCTAssertEqual(try store.remove(item: partial).map(\.path), [dir + "/\(partial)_Half.mp3.part"])
        XCTAssertEqual(try store.remove(item: done).map(\.path), [dir + "/\(done)_Done.mp3"])
        XCTAssertEqual(try files(), [])
        XCTAssertThrowsError(try store.remove(item: done)) { error in
            XCTAssertEqual(error as? DownloadError, DownloadError(itemID: done, kind: .notDownloaded, reason: "not downloaded"))
        }
    }

    func testAPartHeldByAnotherDownloadIsLeftAlone() async throws {
        let channel = try await library.addTestChannel("show")
        let id = try await episode("e1", channel: channel, title: "Busy")
        try store.createDirectory()
        let part = store.directory + "/\(id)_Busy.mp3.part"
        let other = try XCTUnwrap(try PartLock(path: part, itemID: id, create: true))  // as another process would

        let results = await downloader().download(ids: [id])
        XCTAssertEqual(results.first?.error, "item \(id): another feedctl is downloading it (\(part))")
        XCTAssertThrowsError(try store.remove(item: id)) { XCTAssertEqual(($0 as? DownloadError)?.kind, .busy) }
        XCTAssertTrue(FileManager.default.fileExists(atPath: part))
        withExtendedLifetime(other) {}
        XCTAssertEqual(try server.stats().hits["/ep.mp3"], nil)
    }

    func testItemsWithoutMediaOrNotInTheLibraryFailAlone() async throws {
        let channel = try await library.addTestChannel("show")
        _ = try await library.ingest(items: [Item(id: "text", title: "Just text")], channelID: channel, now: 2000)
        let text = try await library.id(of: "text")
        let good = try await episode("e1", channel: channel, title: "Good", length: Int64(media.count))
        let results = await downloader().download(ids: [9999, text, good])
        XCTAssertEqual(results.map(\.status), [.failed, .failed, .downloaded])
        XCTAssertEqual(results[0].error, "item 9999: not in the library")
        XCTAssertEqual(results[1].error, "item \(text): \"Just text\" has no enclosure to download (only podcast episodes can be downloaded)")
        XCTAssertEqual(try files(), ["\(good)_Good.mp3"])
    }

    func testAtMostConcurrencyDownloadsRunAtOnce() async throws {
        let channel = try await library.addTestChannel("show")
        // Each body trickles for ~0.6 s, so the six overlap as far as the bound lets them.
        let ids = try await (1...6).asyncMap { try await episode("s\($0)", channel: channel, path: "/slow?bytes=3&delay=0.2&n=\($0)") }
        let results = await downloader(concurrency: 2).download(ids: ids)
        XCTAssertEqual(results.map(\.status), Array(repeating: .downloaded, count: 6))
        XCTAssertEqual(results.map(\.bytes), Array(repeating: 3, count: 6))
        let stats = try server.stats()
        XCTAssertEqual(stats.hits["/slow"], 6)
        XCTAssertEqual(stats.max_inflight, 2)
    }

    func testHTTPErrorLeavesNothing() async throws {
        let channel = try await library.addTestChannel("show")
        let id = try await episode("e1", channel: channel, path: "/missing.mp3")
        let results = await downloader().download(ids: [id])
        XCTAssertEqual(results.first?.error, "item \(id): \(server.url("/missing.mp3")): HTTP 404 Not Found")
        XCTAssertEqual(try files(), [])
    }
}

/// Progress totals as the fetch thread reports them.
private final class Totals: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Int64?] = []
    func add(_ total: Int64?) { lock.lock(); values.append(total); lock.unlock() }
    var all: [Int64?] { lock.lock(); defer { lock.unlock() }; return values }
}
