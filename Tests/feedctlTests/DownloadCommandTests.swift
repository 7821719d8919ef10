
import FeedModel
import Foundation
import LibrarySQLite
import LibraryStore
import TestSupport
import XCTest

/// `feedctl download …` through the built binary, with a real library in a temp dir (--db)
/// and a real HTTP server on 127.0.0.1.
final class DownloadCommandTests: XCTestCase {
    private var server: TestHTTPServer!
    private var dir: URL!
    private var db: String { dir.appendingPathComponent("lib/library.sqlite").path }
    private var media: String { dir.appendingPathComponent("lib/media").path }
    private let audio: [UInt8] = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ $0 >> 10) }

    override func setUpWithError() throws {
        server = try TestHTTPServer()
        try Data(audio).write(to: server.root.appendingPathComponent("ep.mp3"))
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("feedctl-dlcli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        server.stop()
        try? FileManager.default.removeItem(at: dir)
    }

    typealias Run = ProcessRunner.Result

    private func feedctl(_ arguments: String...) throws -> Run { try feedctl(arguments) }

    /// `FEEDCTL_MEDIA` is set to `mediaVariable` (when given), and unset otherwise: the default is what these tests check.
    private func feedctl(_ arguments: [String], mediaVariable: String? = nil) throws -> Run {
        var environment = ProcessInfo.processInfo.environment
        environment["FEEDCTL_MEDIA"] = mediaVariable
        return try ProcessRunner.capture(try DaemonTestCase.feedctlBinary().path,
                                         arguments.flatMap { $0 == "DB" ? ["--db", db] : [$0] }, environment: environment)
    }

    private func json(_ text: String) throws -> Any { try JSONSerialization.jsonObject(with: Data(text.utf8)) }

    /// A podcast channel with three episodes (newest first: whole, cut, old) and a YouTube
    /// channel; returns the podcast episodes' library ids.
    private func makeLibrary() async throws -> (whole: Int64, cut: Int64, old: Int64) {
        let library = try SQLiteLibrary(path: db)
        let show = try await library.addChannel(platform: .podcast, sourceURL: "", feedURL: server.url("/feed.xml"), name: "Show", now: 1).id
        let yt = try await library.addChannel(platform: .youtube, sourceURL: "", feedURL: server.url("/yt.xml"), name: "Tube", now: 1).id
        func episode(_ id: String, _ title: String, _ path: String, length: Int64?, published: Int64) -> Item {
            Item(id: id, title: title, published: published,
                 enclosure: Enclosure(url: server.url(path), type: "audio/mpeg", length: length))
        }
        _ = try await library.ingest(items: [
            episode("whole", "Whole: part 1/2", "/ep.mp3", length: Int64(audio.count), published: 300),
            episode("cut", "Cut", "/cut/ep.mp3?after=1000", length: nil, published: 200),
            episode("old", "Old", "/ep.mp3?old", length: Int64(audio.count), published: 100),
        ], channelID: show, now: 1)
        _ = try await library.ingest(items: [Item(id: "v1", title: "Video", url: "https://www.youtube.com/watch?v=v1", published: 400)],
                               channelID: yt, now: 1)
        let items = try await library.feed(filter: FeedFilter(channelID: show), now: 1000)
        func id(_ itemID: String) throws -> Int64 { try XCTUnwrap(items.first { $0.itemID == itemID }?.id) }
        return (try id("whole"), try id("cut"), try id("old"))
    }

    func testRoundTrip() async throws {
        let (whole, cut, old) = try await makeLibrary()
        let wholePath = "\(media)/\(whole)_Whole- part 1-2.mp3"

        // Issue 13, bug 5: an id that doesn't exist downloads nothing (it used to let the others
        // go on), and says which id in one line.
        let refused = try feedctl("download", "DB", String(whole), "9999")
        XCTAssertEqual(refused.status, 1)
        XCTAssertEqual(refused.stderr, "feedctl: nothing downloaded: item 9999: not in the library\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: media + "/" + "\(whole)_Whole- part 1-2.mp3"))

        // One download fails (cut short): the other still lands, and the exit status is 2 (partial).
        let first = try feedctl("download", "DB", "--json", String(whole), String(cut))
        XCTAssertEqual(first.status, 2)
        let results = try XCTUnwrap(try json(first.stdout) as? [[String: Any]])
        XCTAssertEqual(results.map { $0["status"] as? String }, ["downloaded", "failed"])
        XCTAssertEqual(Set(results[0].keys), ["id", "title", "channel", "status", "path", "bytes", "error"])
        XCTAssertEqual(results[0]["path"] as? String, wholePath)
        XCTAssertEqual(results[0]["bytes"] as? Int, audio.count)
        XCTAssertTrue(results[0]["error"] is NSNull)
        XCTAssertEqual(Array(try Data(contentsOf: URL(fileURLWithPath: wholePath))), audio)
        let errorLines = first.stderr.split(separator: "\n")
        XCTAssertEqual(errorLines, [
            "feedctl: item \(cut): \(server.url("/cut/ep.mp3?after=1000")): connection closed after 1000 of \(audio.count) bytes",
            "feedctl: 1 of 2 downloads failed (items \(cut))",
        ])

        // The cut one is listed as partial.
        let list = try feedctl("download", "list", "DB", "--json")
        XCTAssertEqual(list.status, 0, list.stderr)
        let files = try XCTUnwrap(try json(list.stdout) as? [[String: Any]])
        XCTAssertEqual(files.map { $0["id"] as? Int }, [Int(whole), Int(cut)])
        XCTAssertEqual(files.map { $0["complete"] as? Bool }, [true, false])
        XCTAssertEqual(files.map { $0["bytes"] as? Int }, [audio.count, 1000])
        XCTAssertEqual(files.map { $0["title"] as? String }, ["Whole: part 1/2", "Cut"])
        XCTAssertEqual(files.map { $0["channel"] as? String }, ["Show", "Show"])
        XCTAssertEqual(files[1]["path"] as? String, "\(media)/\(cut)_Cut.mp3.part")
        XCTAssertEqual(Set(files[0].keys), ["id", "title", "channel", "channel_id", "path", "bytes", "expected_bytes", "complete"])

        // Resumed with a Range request.
        let resumed = try feedctl("download", "DB", String(cut))
        XCTAssertEqual(resumed.status, 0, resumed.stderr)
        XCTAssertEqual(resumed.stdout, "downloaded \(cut) \(media)/\(cut)_Cut.mp3 (200 kB)\n")
        XCTAssertEqual(try server.stats().log.filter { $0.path == "/cut/ep.mp3" }.map(\.status), [200, 206])

        // --auto 2: the newest two are there already; the third is left alone.
        let auto = try feedctl("download", "DB", "--auto", "2")
        XCTAssertEqual(auto.status, 0, auto.stderr)
        // A line per item as each finishes (so in either order: they run concurrently), then the summary.
        var autoLines = auto.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        XCTAssertEqual(autoLines.popLast(), "", "output ends with a newline")
        XCTAssertEqual(autoLines.popLast(), "channel 1 Show: newest 2: 0 downloaded, 2 already there, 0 failed")
        XCTAssertEqual(autoLines.sorted(), [
            "already    \(whole) \(wholePath)",
            "already    \(cut) \(media)/\(cut)_Cut.mp3",
        ].sorted())
        XCTAssertFalse(try FileManager.default.contentsOfDirectory(atPath: media).contains { $0.hasPrefix("\(old)_") })

        // remove, then remove again: one line on stderr and a non-zero status.
        let removed = try feedctl("download", "remove", "DB", String(whole))
        XCTAssertEqual(removed.status, 0, removed.stderr)
        XCTAssertEqual(removed.stdout, "removed \(whole) \(wholePath)\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: wholePath))
        let again = try feedctl("download", "remove", "DB", String(whole))
        XCTAssertEqual(again.status, 1)
        XCTAssertEqual(again.stderr, "feedctl: item \(whole): not downloaded\n")
        // All or none: with one id not downloaded, the others keep their files.
        let cutPath = "\(media)/\(cut)_Cut.mp3"
        let mixed = try feedctl("download", "remove", "DB", String(cut), String(whole))
        XCTAssertEqual(mixed.status, 1)
        XCTAssertEqual(mixed.stderr, "feedctl: item \(whole): not downloaded; nothing removed\n")
        XCTAssertTrue(FileManager.default.fileExists(atPath: cutPath), "the other file stays")
    }

    /// The media directory is its own setting: `--media-dir`, else `FEEDCTL_MEDIA` (the option
    /// wins), for every command that touches downloads; nothing lands beside the library then.
    func testTheMediaDirectoryIsItsOwnSetting() async throws {
        let (whole, _, old) = try await makeLibrary()
        let elsewhere = dir.appendingPathComponent("elsewhere").path
        let fromVariable = dir.appendingPathComponent("from-variable").path
        let wholePath = "\(elsewhere)/\(whole)_Whole- part 1-2.mp3"
        let oldPath = "\(fromVariable)/\(old)_Old.mp3"

        let got = try feedctl(["download", "DB", "--media-dir", elsewhere, String(whole)])
        XCTAssertEqual(got.status, 0, got.stderr)
        XCTAssertEqual(got.stdout, "downloaded \(whole) \(wholePath) (200 kB)\n")
        XCTAssertEqual(Array(try Data(contentsOf: URL(fileURLWithPath: wholePath))), audio)
        let viaVariable = try feedctl(["download", "DB", String(old)], mediaVariable: fromVariable)
        XCTAssertEqual(viaVariable.stdout, "downloaded \(old) \(oldPath) (200 kB)\n", viaVariable.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: media), "nothing beside the library")

        // list, show and remove read the same setting; without it they look beside the library.
        func listed(_ arguments: [String], mediaVariable: String? = nil) throws -> [String] {
            let list = try feedctl(["download", "list", "DB", "--json"] + arguments, mediaVariable: mediaVariable)
            XCTAssertEqual(list.status, 0, list.stderr)
            return try XCTUnwrap(try json(list.stdout) as? [[String: Any]]).compactMap { $0["path"] as? String }
        }
        XCTAssertEqual(try listed(["--media-dir", elsewhere]), [wholePath])
        XCTAssertEqual(try listed([], mediaVariable: fromVariable), [oldPath])
        XCTAssertEqual(try listed(["--media-dir", elsewhere], mediaVariable: fromVariable), [wholePath], "the option wins")
        XCTAssertEqual(try listed([]), [], "the default is still beside the library")
        let show = try feedctl(["show", "DB", String(whole), "--media-dir", elsewhere])
        XCTAssertTrue(show.stdout.contains("download:   \(wholePath) (200 kB)\n"), show.stdout)
        XCTAssertTrue(try feedctl(["show", "DB", String(whole)]).stdout.contains("download:   not downloaded\n"))
        let removed = try feedctl(["download", "remove", "DB", String(old)], mediaVariable: fromVariable)
        XCTAssertEqual(removed.stdout, "removed \(old) \(oldPath)\n", removed.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: oldPath))

        // Removing the channel deletes its downloads where they are.
        let gone = try feedctl(["channel", "remove", "DB", "1", "--media-dir", elsewhere])
        XCTAssertEqual(gone.status, 0, gone.stderr)
        XCTAssertTrue(gone.stdout.contains("deleted 1 downloaded file"), gone.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: wholePath))

        let empty = try feedctl(["download", "list", "DB", "--media-dir", ""])
        XCTAssertEqual(empty.status, 1)
        XCTAssertEqual(empty.stderr, "feedctl: --media-dir is empty: give a directory\n")
    }

    func testAutoJSONAndPrune() async throws {
        let (whole, cut, old) = try await makeLibrary()
        XCTAssertEqual(try feedctl("download", "DB", String(old)).status, 0)

        let auto = try feedctl("download", "DB", "--auto", "1", "--prune", "--json")
        XCTAssertEqual(auto.status, 0, auto.stderr)
        let report = try XCTUnwrap(try json(auto.stdout) as? [String: Any])
        XCTAssertEqual(Set(report.keys), ["keep", "channels", "results", "pruned"])
        XCTAssertEqual(report["keep"] as? Int, 1)
        let channels = try XCTUnwrap(report["channels"] as? [[String: Any]])
        XCTAssertEqual(channels.map { $0["name"] as? String }, ["Show"])  // podcasts only
        XCTAssertEqual(channels.first?["items"] as? [Int], [Int(whole)])
        let results = try XCTUnwrap(report["results"] as? [[String: Any]])
        XCTAssertEqual(results.map { $0["id"] as? Int }, [Int(whole)])
        XCTAssertEqual(results.map { $0["status"] as? String }, ["downloaded"])
        let pruned = try XCTUnwrap(report["pruned"] as? [[String: Any]])
        XCTAssertEqual(pruned.map { $0["id"] as? Int }, [Int(old)])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: media), ["\(whole)_Whole- part 1-2.mp3"])
        _ = cut
    }

    func testUsageErrorsAreOneLine() async throws {
        _ = try await makeLibrary()
        for arguments in [["download", "DB"], ["download", "DB", "--prune", "1"], ["download", "DB", "--auto", "0"]] {
            let run = try feedctl(arguments)
            XCTAssertNotEqual(run.status, 0, "\(arguments)")
            XCTAssertEqual(run.stderr.filter { $0 == "\n" }.count, 1, run.stderr)
            XCTAssertTrue(run.stderr.hasPrefix("feedctl: "), run.stderr)
        }
    }
}
