import FeedModel
import Foundation
import GRDB
@testable import LibrarySQLite
import LibraryStore
import TestSupport
import Testing

/// How the SQLite store keeps a feed's details (issue 17, `v10-feed-details`: JSON arrays, NULL for
/// none); what it shows of them is StoreContractTests'.
@Suite struct StoreFeedDetailsTests {
    let t: TestLibrary
    let channel: Int64
    init() async throws {
        t = try TestLibrary()
        channel = try await t.library.addTestChannel("show")
    }

    private func poll(_ outcome: Poll.Outcome) async throws {
        for result in await t.library.apply([Poll(subject: .channel(id: channel), outcome: outcome)], now: 100) { _ = try result.get() }
    }

    /// A feed without warnings or funding, an item without persons: the columns hold NULL, not "[]".
    @Test func emptyListsAreStoredAsNull() async throws {
        var episode = item("ep")
        episode.persons = [Person(name: "Ann")]
        let broken = Feed(kind: .rss, title: "Show", funding: [Link(url: "https://ex.com/give", title: "Give")], items: [episode],
                          warnings: ["line 3: Opening and ending tag mismatch: title line 3 and item"])
        try await poll(.changed(Validators(bodyHash: "h1"), broken))
        episode.persons = []
        try await poll(.changed(Validators(bodyHash: "h2"), Feed(kind: .rss, title: "Show", items: [episode])))
        let stored = try await t.library.pool.read { [channel] db in
            try String.fetchOne(db, sql: "SELECT coalesce(warnings, 'NULL') || coalesce(funding, 'NULL') FROM channels WHERE id = ?",
                                arguments: [channel])
        }
        #expect(stored == "NULLNULL")
        let persons = try await t.library.pool.read { db in
            try String.fetchOne(db, sql: "SELECT coalesce(persons, 'NULL') FROM items WHERE item_id = 'ep'")
        }
        #expect(persons == "NULL")
    }

    @Test func theSchemaRefusesListsThatAreNotJSONArrays() async throws {
        await #expect(throws: (any Error).self) {
            try await t.library.pool.write { db in
                try db.execute(sql: "UPDATE channels SET warnings = 'not json' WHERE id = ?", arguments: [channel])
            }
        }
        await #expect(throws: (any Error).self) {
            try await t.library.pool.write { db in
                try db.execute(sql: "UPDATE channels SET funding = '{\"url\": \"x\"}' WHERE id = ?", arguments: [channel])
            }
        }
    }
}
