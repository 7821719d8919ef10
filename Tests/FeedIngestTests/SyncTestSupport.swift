@testable import FeedIngest
import FeedModel
import Foundation
import GRDB
import LibrarySQLite
import LibraryStore
import TestSupport
import XCTest

/// The small generated corpus the sync tests serve: `gen_corpus.py --feeds 12 --episodes 20
/// --youtube 6 --rumble 6`. Generated once into a temp directory named after the generator's
/// contents and arguments (the generator is deterministic), so reruns reuse it.
enum SyncCorpus {
    static let arguments = ["--feeds", "12", "--episodes", "20", "--youtube", "6", "--rumble", "6"]

    static var generator: URL { Corpus.generator }

    /// The corpus directory and its manifest; throws (once per run) if it can't be generated.
    static func shared() throws -> (root: URL, manifest: Manifest) {
        try cached.get()
    }

    private static let cached: Result<(root: URL, manifest: Manifest), Error> = Result {
        let script = try Data(contentsOf: generator)
        let key = ItemIdentity.fnv1a64(String(decoding: script, as: UTF8.self) + arguments.joined(separator: " "))
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("feedctl-sync-corpus-\(key)")
        let manifestURL = root.appendingPathComponent("manifest.json")
        if !FileManager.default.fileExists(atPath: manifestURL.path) {
            try generate(into: root)
        }
        return (root, try Manifest(contentsOf: manifestURL))
    }

    /// Runs the generator into `dir` (replacing what is there).
    static func generate(into dir: URL) throws { try Corpus.generate(into: dir, arguments) }
}

/// The parts of `manifest.json` the sync tests compare against.
struct Manifest: Decodable {
    struct File: Decodable {
        let path: String
        let kind: String
        let channel: Channel
        let items: [Item]
    }
    struct Channel: Decodable {
        let title: String
        /// YouTube only.
        let channel_id: String?
    }
    struct Item: Decodable {
        let id: String
        let title: String
        let url: String?
        let guid: String?
        let enclosure_url: String?
        let is_short: Bool?
    }

    let files: [File]

    init(contentsOf url: URL) throws {
        self = try JSONDecoder().decode(Manifest.self, from: Data(contentsOf: url))
    }

    func file(_ path: String) throws -> File {
        guard let file = files.first(where: { $0.path == path }) else {
            throw TestHTTPServer.Failure(description: "no \(path) in the manifest")
        }
        return file
    }
}

extension Manifest.File {
    /// The library's `item_id` for a manifest item: YouTube → video id, Rumble → v-token (the
    /// manifest's id), podcast → guid, else enclosure URL, else link.
    func libraryID(_ item: Manifest.Item) -> String {
        switch kind {
        case "youtube": String(item.id.dropFirst("yt:video:".count))
        case "podcast": item.guid ?? item.enclosure_url ?? item.url ?? item.id
        default: item.id
        }
    }

    /// item_id → title, first listing of an id winning (as the library keeps it).
    var expectedTitles: [String: String] {
        var titles: [String: String] = [:]
        for item in items where titles[libraryID(item)] == nil { titles[libraryID(item)] = item.title }
        return titles
    }

    var platform: Platform { Platform(rawValue: kind) ?? .podcast }
}

/// A library in a temp dir, a server on 127.0.0.1 and a syncer/subscriber wired to both.
final class SyncHarness {
    let server: TestHTTPServer
    let dir = TempDir()
    let library: SQLiteLibrary
    let syncer: Syncer
    let subscriber: Subscriber

    /// Serves `root` (a fresh temp dir when nil). Timeouts are short so a test on a hanging
    /// body ends quickly; the YouTube origin is the server.
    init(root: URL? = nil, pollInterval: Int64 = 3600, limits: SyncLimits = SyncLimits(connectTimeout: 5, totalTimeout: 20)) throws {
        server = try TestHTTPServer(root: root)
        library = try SQLiteLibrary(path: dir.file("library.sqlite"))
        syncer = Syncer(store: library, reach: .anyAddress, pollInterval: pollInterval, limits: limits)
        subscriber = Subscriber(syncer: syncer, youTubeOrigin: server.base)
    }

    /// Adds a channel polling `path` on the server, without fetching (as an OPML import would).
    @discardableResult
    func addChannel(_ path: String, platform: Platform = .podcast, name: String? = nil) async throws -> Channel {
        try await library.addChannel(platform: platform, sourceURL: server.url(path), feedURL: server.url(path),
                               name: name ?? path, now: 1000)
    }

    /// item_id → title of channel `id`'s stored items.
    func titles(channel id: Int64) async throws -> [String: String] {
        try await library.read { db in
            let rows = try Row.fetchAll(db, sql: "SELECT item_id, title FROM items WHERE channel_id = ?", arguments: [id])
            return Dictionary(rows.map { ($0["item_id"] as String, $0["title"] as String) }, uniquingKeysWith: { a, _ in a })
        }
    }

    /// Channel `id`'s stored items (what a sync may change) and watch state, as text, to prove
    /// that a sync touched nothing.
    func snapshot(channel id: Int64) async throws -> [String] {
        try await library.read { db in
            try Row.fetchAll(db, sql: """
                SELECT i.id, i.item_id, i.title, i.url, i.published, i.updated, i.duration, i.views, i.thumbnail,
                    i.enclosure_url, i.discovered_at, w.watched, w.progress_seconds
                FROM items i LEFT JOIN watch_state w ON w.item = i.id
                WHERE i.channel_id = ? ORDER BY i.id
                """, arguments: [id]).map(\.description)
        }
    }

    /// Copies corpus files into the served root (for tests that change them).
    func copy(_ paths: [String], from corpus: URL) throws {
        for path in paths {
            let target = server.root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try? FileManager.default.removeItem(at: target)
            try FileManager.default.copyItem(at: corpus.appendingPathComponent(path), to: target)
        }
    }

    /// Rewrites a served file with `transform` applied to its text.
    func edit(_ path: String, _ transform: (String) -> String) throws {
        let file = server.root.appendingPathComponent(path)
        let text = try String(contentsOf: file, encoding: .utf8)
        try Data(transform(text).utf8).write(to: file)
    }
}

/// Asserts that channel `id` holds exactly the manifest file's items (ids, titles, count).
func assertLibrary(_ harness: SyncHarness, channel id: Int64, matches file: Manifest.File,
                   file sourceFile: StaticString = #filePath, line: UInt = #line) async throws {
    let stored = try await harness.titles(channel: id)
    let expected = file.expectedTitles
    XCTAssertEqual(stored.count, expected.count, "\(file.path): item count", file: sourceFile, line: line)
    XCTAssertEqual(Set(stored.keys).symmetricDifference(expected.keys).sorted(), [],
                   "\(file.path): item ids differ", file: sourceFile, line: line)
    for (itemID, title) in expected where stored[itemID] != nil && stored[itemID] != title {
        XCTFail("\(file.path): \(itemID) is titled \(stored[itemID]!.debugDescription), expected \(title.debugDescription)",
                file: sourceFile, line: line)
    }
}
