import FeedModel
import Foundation
import LibrarySQLite
import LibraryStore
import TestSupport
import XCTest

/// Issue 13 through the built `feedctl`: multi-id commands check every id first and apply all
/// or nothing (bug 5); `channel remove` takes the channel's downloads with it (bug 1);
/// `watched --channel` marks a backlog.
final class LibraryIDCommandTests: XCTestCase {
    private var server: TestHTTPServer!
    private var dir: TempDir!
    private var db: String { dir.file("lib/library.sqlite") }
    private var media: String { dir.file("lib/media") }
    private let audio = [UInt8](repeating: 0x55, count: 12_345)

    override func setUpWithError() throws {
        server = try TestHTTPServer()
        try Data(audio).write(to: server.root.appendingPathComponent("ep.mp3"))
        dir = TempDir()
    }

    override func tearDown() { server.stop() }

    private func feedctl(_ arguments: String...) throws -> ProcessRunner.Result {
        try ProcessRunner.capture(try DaemonTestCase.feedctlBinary().path, arguments + ["--db", db])
    }

    /// A podcast channel "Show" with three dated episodes (1, 2 and 3 March 2026, local time
    /// noon) and one undated; returns the channel id and the episodes' ids, oldest first.
    private func makeLibrary(name: String = "Show") async throws -> (channel: Int64, items: [Int64]) {
        let library = try SQLiteLibrary(path: db)
        let channel = try await library.addChannel(platform: .podcast, sourceURL: "", feedURL: server.url("/\(name).xml"),
                                                   name: name, now: 1).id
        var items: [Item] = (1...3).map { day in
            var t = tm()
            t.tm_year = 126; t.tm_mon = 2; t.tm_mday = Int32(day); t.tm_hour = 12; t.tm_isdst = -1
            return Item(id: "\(name)-\(day)", title: "\(name) \(day)", published: Int64(mktime(&t)),
                        enclosure: Enclosure(url: server.url("/ep.mp3?\(name)\(day)"), type: "audio/mpeg", length: nil))
        }
        items.append(Item(id: "\(name)-undated", title: "\(name) undated"))
        _ = try await library.ingest(items: items, channelID: channel, now: Clock.now())
        var ids: [Int64] = []
        for item in items { ids.append(try await library.id(of: item.id)) }
        return (channel, ids)
    }

    func testABadIDAppliesNothingAndIsNamed() async throws {
        let (_, ids) = try await makeLibrary()
        let a = String(ids[0]), b = String(ids[1])

        let save = try feedctl("save", a, "9999", b)
        XCTAssertEqual(save.status, 1)
        XCTAssertEqual(save.stderr, "feedctl: no item 9999\n")
        XCTAssertEqual(try feedctl("saved").stdout, "nothing saved\n", "the id before the bad one was not saved either")
        XCTAssertEqual(try feedctl("save", a, b, a).stdout, "saved 2 items: \(a), \(b)\n")
        XCTAssertEqual(try feedctl("save", a).stdout, "saved 0 items (already saved: \(a))\n")
        XCTAssertEqual(try feedctl("unsave", a, "9998", "9999").stderr, "feedctl: no items 9998, 9999\n")
        XCTAssertEqual(try feedctl("unsave", a).stdout, "unsaved 1 item: \(a)\n")

        XCTAssertEqual(try feedctl("collection", "create", "Later").status, 0)
        let add = try feedctl("collection", "add", "Later", a, "9999")
        XCTAssertEqual(add.status, 1)
        XCTAssertEqual(add.stderr, "feedctl: no item 9999\n")
        XCTAssertEqual(try feedctl("collection", "show", "Later").stdout, "\"Later\" is empty\n")
        XCTAssertEqual(try feedctl("collection", "add", "Later", b, a).stdout, "added 2 items to \"Later\": \(b), \(a)\n")
        let remove = try feedctl("collection", "remove", "Later", a, String(ids[2]))
        XCTAssertEqual(remove.stderr, "feedctl: item \(ids[2]) is not in collection \"Later\"\n")
        XCTAssertEqual(try feedctl("collection", "list").stdout, "Later  (2 items)\n")

        let watched = try feedctl("watched", a, "9999")
        XCTAssertEqual(watched.stderr, "feedctl: no item 9999\n")
        XCTAssertEqual(try feedctl("watched", a).stdout, "marked 1 item watched: \(a)\n")
    }

    func testWatchedChannelMarksTheBacklog() async throws {
        let (channel, ids) = try await makeLibrary()
        _ = try await makeLibrary(name: "Other")
        let before = try feedctl("watched", "--channel", String(channel), "--before", "2026-03-03")
        XCTAssertEqual(before.status, 0, before.stderr)
        XCTAssertEqual(before.stdout, "marked 2 items of channel \(channel) published before 2026-03-03 watched\n")
        let library = try SQLiteLibrary(path: db)
        var watched: [Bool] = []
        for id in ids { watched.append(try await library.item(id: id).watched) }
        XCTAssertEqual(watched, [true, true, false, false])
        XCTAssertEqual(try feedctl("watched", "--channel", String(channel)).stdout, "marked 2 items of channel \(channel) watched\n")
        XCTAssertEqual(try feedctl("feed", "--unwatched", "--channel", String(channel)).stdout, "nothing here\n")
        XCTAssertEqual(try feedctl("feed", "--unwatched", "--json").stdout.filter { $0 == "{" }.count, 4, "the other channel is untouched")
        let bad = try feedctl("watched", "--channel", String(channel), "--before", "2026-02-30")
        XCTAssertEqual(bad.stderr.split(separator: "\n").count, 1)
        XCTAssertTrue(bad.stderr.contains("not a date: 2026-02-30 (use YYYY-MM-DD)"), bad.stderr)
        XCTAssertEqual(try feedctl("watched", "--channel", "999").stderr, "feedctl: no channel 999\n")
    }

    /// A channel another user followed outlives the owner's `channel remove` (with its files);
    /// `user remove` of that user then takes it, and its files, as `channel remove` would.
    func testUserRemoveDeletesTheDownloadsOfChannelsOnlyThatUserFollowed() async throws {
        let (show, ids) = try await makeLibrary()
        let (_, keptIDs) = try await makeLibrary(name: "Kept")
        let library = try SQLiteLibrary(path: db)
        let carol = try await library.addUser(name: "carol", isAdmin: false, passwordHash: nil, now: 1)
        _ = try await library.acting(as: carol.id).addChannel(platform: .podcast, sourceURL: "", feedURL: server.url("/Show.xml"),
                                                              name: "Show", now: 2)
        XCTAssertEqual(try feedctl("download", String(ids[0]), String(ids[1]), String(keptIDs[0])).status, 0)
        let shared = try feedctl("channel", "remove", String(show))
        XCTAssertEqual(shared.stdout, "removed \(show): Show (4 items; other users still follow it, so its items and downloads stay)\n")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: media).count, 3)

        let removed = try feedctl("user", "remove", "carol", "--yes")
        XCTAssertEqual(removed.status, 0, removed.stderr)
        XCTAssertEqual(removed.stdout, "removed user carol (1 channel only they followed, 4 items; deleted 2 downloaded files, 25 kB freed)\n")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: media), ["\(keptIDs[0])_Kept 1.mp3"])
        XCTAssertEqual(try feedctl("channel", "show", String(show)).stderr, "feedctl: no channel \(show)\n")
    }

    func testChannelRemoveDeletesItsDownloadsAndIDsAreNotReused() async throws {
        let (show, ids) = try await makeLibrary()
        let (kept, keptIDs) = try await makeLibrary(name: "Kept")
        XCTAssertEqual(try feedctl("download", String(ids[0]), String(ids[1]), String(keptIDs[0])).status, 0)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: media).count, 3)

        let removed = try feedctl("channel", "remove", String(show))
        XCTAssertEqual(removed.status, 0, removed.stderr)
        XCTAssertEqual(removed.stdout, "removed \(show): Show (4 items; deleted 2 downloaded files, 25 kB freed)\n")
        let keptFile = "\(keptIDs[0])_Kept 1.mp3"
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: media), [keptFile])

        let keep = try feedctl("channel", "remove", "--keep-downloads", String(kept))
        XCTAssertEqual(keep.stdout, "removed \(kept): Kept (4 items)\n")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: media), [keptFile])

        // A new channel's episodes get new ids: none of them is handed a kept file.
        let (_, fresh) = try await makeLibrary(name: "Fresh")
        XCTAssertTrue(fresh.allSatisfy { $0 > keptIDs.max() ?? 0 }, "\(fresh) vs \(keptIDs)")
        let list = try feedctl("download", "list", "--json")
        let files = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(files.map { $0["id"] as? Int }, [Int(keptIDs[0])])
        XCTAssertTrue(files[0]["title"] is NSNull, "a kept file belongs to no item")

        let bad = try feedctl("channel", "remove", String(show), "999")
        XCTAssertEqual(bad.stderr, "feedctl: no channel \(show)\n")
    }
}
