import FeedModel
import Foundation
import LibrarySQLite
import LibraryStore
import TestSupport
import XCTest

/// `collection copy|move` and `collection targets` through the built `feedctl`: one line per
/// outcome, items not found named on stderr (exit status 2, the rest done), refusals in one line;
/// and `channel remove` leaving a collection's items, and their downloads, in place.
final class CollectionTransferCLITests: XCTestCase {
    private var server: TestHTTPServer!
    private var dir: TempDir!
    private var db: String { dir.file("lib/library.sqlite") }
    private var media: String { dir.file("lib/media") }

    override func setUpWithError() throws {
        server = try TestHTTPServer()
        try Data(repeating: 0x55, count: 12_345).write(to: server.root.appendingPathComponent("ep.mp3"))
        dir = TempDir()
    }

    override func tearDown() { server.stop() }

    private func feedctl(_ arguments: String...) throws -> ProcessRunner.Result {
        try ProcessRunner.capture(try DaemonTestCase.feedctlBinary().path, arguments + ["--db", db])
    }

    /// A podcast channel "Show" with three episodes (published in that order): (channel, ids).
    private func makeLibrary() async throws -> (channel: Int64, items: [Int64]) {
        let library = try SQLiteLibrary(path: db)
        let channel = try await library.addChannel(platform: .podcast, sourceURL: "", feedURL: server.url("/show.xml"), name: "Show", now: 1).id
        let items = (1...3).map { n in
            Item(id: "ep\(n)", title: "Episode \(n)", published: 1_770_000_000 + Int64(n) * 86_400,
                 enclosure: Enclosure(url: server.url("/ep.mp3?\(n)"), type: "audio/mpeg", length: nil))
        }
        _ = try await library.ingest(items: items, channelID: channel, now: Clock.now())
        var ids: [Int64] = []
        for item in items { ids.append(try await library.id(of: item.id)) }
        return (channel, ids)
    }

    private func ids(_ collection: String) throws -> [Int64] {
        let shown = try feedctl("collection", "show", collection, "--json")
        let items = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [[String: Any]], shown.stderr)
        return items.compactMap { ($0["id"] as? Int).map(Int64.init) }
    }

    func testCopyMoveAndTargetsSayWhatTheyDidALineEach() async throws {
        let (channel, items) = try await makeLibrary()
        let (a, b, c) = (String(items[0]), String(items[1]), String(items[2]))
        for name in ["A", "B", "C"] { XCTAssertEqual(try feedctl("collection", "create", name).status, 0) }
        XCTAssertEqual(try feedctl("collection", "add", "A", a, b, c).status, 0)

        let copied = try feedctl("collection", "copy", a, b, "--from", "A", "--to", "B")
        XCTAssertEqual(copied.status, 0, copied.stderr)
        XCTAssertEqual(copied.stdout, "copied 2 items to \"B\"\n")
        let again = try feedctl("collection", "copy", a, c, "--from", "A", "--to", "B")
        XCTAssertEqual(again.stdout, "copied 1 item to \"B\"\nskipped 1 duplicate (already in \"B\")\n")
        XCTAssertEqual(try ids("B"), [items[0], items[1], items[2]])
        XCTAssertEqual(try ids("A"), items, "a copy leaves the source")

        // Not in the source: named on stderr, the rest done, exit status 2.
        let moved = try feedctl("collection", "move", b, "9999", "--from", "A", "--to", "C")
        XCTAssertEqual(moved.status, 2)
        XCTAssertEqual(moved.stdout, "moved 1 item to \"C\"\n")
        XCTAssertEqual(moved.stderr, "feedctl: item 9999 is not in collection \"A\"\nfeedctl: 1 item not found; the rest was moved\n")
        XCTAssertEqual(try ids("A"), [items[0], items[2]])
        XCTAssertEqual(try ids("C"), [items[1]])

        // A channel stands for its items, a collection for its; --preserve-metadata keeps places.
        let channelMove = try feedctl("collection", "move", "--channel", String(channel), "--from", "A", "--to", "C", "--preserve-metadata")
        XCTAssertEqual(channelMove.stdout, "moved 2 items to \"C\"\nskipped 1 duplicate (already in \"C\")\n", channelMove.stderr)
        XCTAssertEqual(try ids("C"), [items[0], items[2], items[1]], "each at its place in A")
        XCTAssertEqual(try ids("A"), [])
        let json = try feedctl("collection", "copy", "--collection", "C", "--from", "B", "--to", "A", "--json")
        let answer = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], json.stderr)
        XCTAssertEqual(Set(answer.keys), ["operation", "source", "target", "items_affected", "duplicates_skipped", "errors"])
        XCTAssertEqual(answer["items_affected"] as? [Int], [items[0], items[2], items[1]].map(Int.init))
        XCTAssertEqual(answer["target"] as? String, "A")

        let targets = try feedctl("collection", "targets", "B")
        XCTAssertEqual(targets.stdout, "A  (3 items; holds some of these already)\nC  (3 items; holds some of these already)\n")
        XCTAssertEqual(try feedctl("collection", "create", "D").status, 0)
        XCTAssertTrue(try feedctl("collection", "targets", "B").stdout.hasSuffix("D  (0 items)\n"))

        // Refusals: one line, nothing changed.
        let refusals: [([String], String)] = [
            (["collection", "copy", a, "--from", "A", "--to", "A"], "feedctl: the source and the target are the same collection: copy to another one\n"),
            (["collection", "move", a, "--from", "Nope", "--to", "A"], "feedctl: no collection \"Nope\"\n"),
            (["collection", "copy", "--collection", "Nope", "--from", "B", "--to", "A"], "feedctl: no collection \"Nope\"\n"),
            (["collection", "targets", "Nope"], "feedctl: no collection \"Nope\"\n"),
        ]
        for (arguments, error) in refusals {
            let result = try ProcessRunner.capture(try DaemonTestCase.feedctlBinary().path, arguments + ["--db", db])
            XCTAssertEqual(result.status, 1, arguments.joined(separator: " "))
            XCTAssertEqual(result.stderr, error, arguments.joined(separator: " "))
        }
        let nothing = try feedctl("collection", "copy", "--from", "B", "--to", "A")
        XCTAssertNotEqual(nothing.status, 0)
        XCTAssertTrue(nothing.stderr.contains("name the items: item ids, --channel ID or --collection NAME"), nothing.stderr)
        XCTAssertEqual(try ids("A"), [items[0], items[2], items[1]])
    }

    /// `channel remove` of the last follower: the items in collections stay, shown with their
    /// channel's name, and so do their downloaded files; the others go.
    func testChannelRemoveKeepsTheItemsOfCollectionsAndTheirDownloads() async throws {
        let (channel, items) = try await makeLibrary()
        XCTAssertEqual(try feedctl("collection", "create", "Playlist").status, 0)
        XCTAssertEqual(try feedctl("collection", "add", "Playlist", String(items[1])).status, 0)
        XCTAssertEqual(try feedctl("download", String(items[0]), String(items[1])).status, 0)
        let removed = try feedctl("channel", "remove", String(channel))
        XCTAssertEqual(removed.status, 0, removed.stderr)
        XCTAssertEqual(removed.stdout, "removed \(channel): Show (3 items; 1 item in collections stay; deleted 1 downloaded file, 12 kB freed)\n")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: media), ["\(items[1])_Episode 2.mp3"])
        let shown = try feedctl("collection", "show", "Playlist")
        XCTAssertTrue(shown.stdout.contains("Show — Episode 2"), shown.stdout)
        XCTAssertEqual(try feedctl("feed").stdout, "nothing here\n")
    }
}
