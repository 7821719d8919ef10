import FeedModel
@testable import LibraryPostgres
import LibraryStore
import TestSupport
import XCTest

/// The PostgreSQL ingest stores what the SQLite one stores: the same polls applied to both
/// libraries leave the same rows (items, channels, subscriptions, the users' totals and the
/// change log), read back as text, and answer the same. What the contract tests check through
/// the protocols, this checks in the tables, for every column the ingest writes.
final class PostgresIngestParityTests: XCTestCase {
    private var database: (name: String, url: String)!

    override func setUpWithError() throws {
        database = try TestPostgres.createDatabase()
    }

    override func tearDown() {
        if let database { TestPostgres.drop(database.name) }
    }

    /// Every column of `table`, NULL shown as ∅, one line per row: the same text on both engines.
    private static func lines(_ table: String, _ columns: [String], order: String) -> String {
        "SELECT " + columns.map { "coalesce(CAST(\($0) AS TEXT), '∅')" }.joined(separator: " || '|' || ") + " AS line FROM \(table) ORDER BY \(order)"
    }

    private static let tables = [
        // In id order, without the ids: SQLite's upsert spends an id on every row already there
        // (a re-ingest's), this store only on the rows it inserts (`testRereadingAFeedSpendsNoIDs`).
        lines("items", ["channel_id", "item_id", "guid", "title", "url", "published", "updated", "duration", "enclosure_url",
                        "enclosure_type", "enclosure_length", "thumbnail", "author", "description", "views", "is_short", "episode",
                        "season", "chapters_url", "transcript_url", "discovered_at", "state", "explicit", "episode_type",
                        "live_status", "persons", "funding", "notes_markup"], order: "id"),
        lines("channels", ["id", "platform", "source_url", "feed_url", "name", "image", "added_at", "last_synced", "last_error",
                           "consecutive_errors", "next_poll", "etag", "last_modified", "body_hash", "warnings", "self_url", "next_page",
                           "funding", "claimed_until", "claimed_by", "private_addresses"], order: "id"),
        lines("subscriptions", ["user_id", "channel_id", "active", "speed_set", "added_at", "items", "private_addresses"],
              order: "user_id, channel_id"),
        lines("users", ["id", "feed_items"], order: "id"),
        lines("changes", ["seq", "user_id", "kind", "payload"], order: "seq"),
    ]

    private func pgLines(_ library: PostgresLibrary, _ sql: String) async throws -> [String] {
        try await library.read { db throws(LibraryError) in
            try db.query(sql).rows.map { row throws(LibraryError) in try row.get(0) as String }
        }
    }

    /// Text that an array literal, a quoted value or a C string could mangle.
    private static let awkward = #"{a,"b"} \ \\ "NULL" NULL , ' ; -- é 🎧 \N"#

    private static func fullItem(_ id: String) -> Item {
        Item(id: id, guid: "g-\(id)", title: "Épisode \(id) & “more” \(awkward)", url: "https://ex.com/\(id)", published: 1_700_000_000,
             updated: 1_700_000_100, duration: 3723, enclosure: Enclosure(url: "https://cdn.ex.com/\(id).mp3", type: "audio/mpeg", length: 12345),
             thumbnail: "https://ex.com/\(id).jpg", author: "", description: String(repeating: "déjà vu ", count: 2000) + awkward,
             views: 99, isShort: true, episode: 1, season: 2, episodeType: "full", explicit: false,
             chaptersURL: "https://ex.com/c.json", transcriptURL: "https://ex.com/t.vtt",
             persons: [Person(name: "Ann \"A\" {x}", role: "host", href: nil, image: "https://ex.com/ann.jpg")],
             funding: [Link(url: "https://ex.com/give", title: "Give, \\ now")], liveStatus: "ended", notesMarkup: "<p>\(awkward)</p>")
    }

    /// The polls of the scenario, step by step: each step one batch, as a user (nil: the owner) applies it.
    private static func steps(a: Int64, b: Int64) -> [(user: String?, polls: [Poll])] {
        var renamed = fullItem("ep1")
        renamed.title = "Renamed"
        renamed.views = 100
        var bad = Item(id: "neg", title: "", duration: -5, enclosure: Enclosure(url: "https://x/1.mp3", length: -10), views: -1, explicit: true)
        bad.description = ""
        let first = Feed(kind: .podcast, title: "  The Show  ", image: "https://ex.com/show.jpg", selfURL: "https://ex.com/self",
                         nextPage: "https://ex.com/page2", funding: [Link(url: "https://ex.com/fund", title: nil)],
                         items: [fullItem("ep1"), fullItem("ep2"), Item(id: "ep1", title: "listed twice"), Item(id: "", title: "no id"), bad],
                         warnings: ["a warning, \"quoted\"", "another {one}"])
        let second = Feed(kind: .podcast, title: "", items: [renamed, Item(id: "ep3", title: "New", published: nil), fullItem("ep2")])
        return [
            (nil, [Poll(subject: .channel(id: a), outcome: .changed(Validators(etag: "\"e1\"", lastModified: "Mon", bodyHash: "h1"), first),
                        pollInterval: 600)]),
            ("bob", [Poll(subject: .subscription(NewChannel(platform: .podcast, sourceURL: "https://example.com/a", feedURL: "https://example.com/a.xml",
                                                            name: "", image: "https://i/a2.jpg", reach: .publicOnly)), outcome: .notFetched)]),
            (nil, [Poll(subject: .channel(id: a), outcome: .changed(Validators(bodyHash: "h2"), second), pollInterval: 600),
                   Poll(subject: .channel(id: b), outcome: .failed(message: "https://example.com/b.xml: HTTP 500", retryAfter: nil), pollInterval: 600),
                   Poll(subject: .channel(id: b), outcome: .failed(message: "https://example.com/b.xml: HTTP 502", retryAfter: 5000), pollInterval: 600)]),
            (nil, [Poll(subject: .channel(id: a), outcome: .unchanged(Validators(movedTo: "https://example.com/moved.xml")), pollInterval: 900),
                   Poll(subject: .channel(id: b), outcome: .changed(Validators(etag: "b1"), Feed(kind: .rss, title: "Bee", items: [fullItem("b1")])))]),
            // A batch with a poll that cannot be stored: the others are, each on its own.
            (nil, [Poll(subject: .channel(id: b), outcome: .changed(Validators(), Feed(kind: .rss, items: [Item(id: "b2", title: "two")]))),
                   Poll(subject: .channel(id: 99), outcome: .unchanged(Validators())),
                   Poll(subject: .channel(id: a), outcome: .failed(message: "https://example.com/moved.xml: timed out", retryAfter: nil))]),
        ]
    }

    /// What applying returned, as text (an error by its description).
    private static func describe(_ results: [Result<PollApplied, LibraryError>]) -> [String] {
        results.map { result in
            switch result {
            case .success(let applied): "\(applied.channelID): +\(applied.ingest.new) ~\(applied.ingest.updated)"
            case .failure(let error): "\(error)"
            }
        }
    }

    func testTheSamePollsLeaveTheSameRowsAsSQLite() async throws {
        let sqlite = try TestLibrary()
        let postgres = try await PostgresLibrary(url: database.url, location: "test", connections: 2)
        var answers: [[String]] = []
        for engine in [sqlite.library as any LibraryDatabase, postgres as any LibraryDatabase] {
            let owner = engine.owner
            let bob = engine.store(for: try await owner.addUser(name: "bob", isAdmin: false, passwordHash: nil, now: 1).id)
            let a = try await owner.addChannel(platform: .podcast, sourceURL: "https://example.com/a", feedURL: "https://example.com/a.xml",
                                               name: "A", now: 10).id
            let b = try await bob.addChannel(platform: .rumble, sourceURL: "https://example.com/b", feedURL: "https://example.com/b.xml",
                                             name: "B", reach: .publicOnly, now: 11).id
            var said: [String] = []
            for (index, step) in Self.steps(a: a, b: b).enumerated() {
                let store = step.user == nil ? owner : bob
                said += Self.describe(await store.apply(step.polls, now: 1000 * Int64(index + 1)))
            }
            answers.append(said)
        }
        XCTAssertEqual(answers[0], answers[1], "what apply answered")
        XCTAssertTrue(answers[1].contains("\(LibraryError.noChannel(99))"), "\(answers[1])")
        for sql in Self.tables {
            let expected = try sqlite.strings(sql)
            let found = try await pgLines(postgres, sql)
            XCTAssertFalse(expected.isEmpty, sql)
            XCTAssertEqual(found.count, expected.count, sql)
            for (line, (pg, lite)) in zip(found, expected).enumerated() where pg != lite {
                // From a little before the first character that differs.
                let same = zip(pg, lite).prefix { $0 == $1 }.count
                XCTFail("""
                    \(sql.split(separator: " ").last ?? ""): row \(line) differs at character \(same):
                      postgresql …\(pg.dropFirst(max(0, same - 60)).prefix(200))
                      sqlite     …\(lite.dropFirst(max(0, same - 60)).prefix(200))
                    """)
            }
        }
    }
}
