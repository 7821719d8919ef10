import FeedModel
import Foundation
import GRDB
@testable import LibrarySQLite
import LibraryStore
import TestSupport
import Testing

/// What the parser reads reaches the library (issue 17, `v10-feed-details`): a channel's current
/// parse warnings, self URL, next page and funding; an item's explicit flag, episode type, live
/// status, persons and funding.
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

    @Test func channelWarningsAreReplacedByEachParsedBody() async throws {
        let broken = Feed(kind: .rss, title: "Show", selfURL: "https://ex.com/feed.xml", nextPage: "https://ex.com/feed.xml?page=2",
                          funding: [Link(url: "https://ex.com/give", title: "Give")], items: [item("a")],
                          warnings: ["line 3: Opening and ending tag mismatch: title line 3 and item", "and 4 more"])
        try await poll(.changed(Validators(bodyHash: "h1"), broken))
        var summary = try await t.library.channelSummary(id: channel)
        #expect(summary.warnings == ["line 3: Opening and ending tag mismatch: title line 3 and item", "and 4 more"])
        #expect(summary.selfURL == "https://ex.com/feed.xml")
        #expect(summary.nextPage == "https://ex.com/feed.xml?page=2")
        #expect(summary.funding == [Link(url: "https://ex.com/give", title: "Give")])
        #expect(try await t.library.channelSummaries().map(\.warnings) == [summary.warnings])

        // An unchanged body (304 or the same hash) keeps them: it is the same document.
        try await poll(.unchanged(Validators()))
        #expect(try await t.library.channelSummary(id: channel).warnings.count == 2)
        // A failed fetch keeps them too: its error is last_error.
        try await poll(.failed(message: "HTTP 500", retryAfter: nil))
        #expect(try await t.library.channelSummary(id: channel).warnings.count == 2)
        // A mended feed clears them.
        try await poll(.changed(Validators(bodyHash: "h2"), Feed(kind: .rss, title: "Show", items: [item("a")])))
        summary = try await t.library.channelSummary(id: channel)
        #expect(summary.warnings == [] && summary.selfURL == nil && summary.nextPage == nil && summary.funding == [])
        let stored = try await t.library.pool.read { [channel] db in
            try String.fetchOne(db, sql: "SELECT coalesce(warnings, 'NULL') || coalesce(funding, 'NULL') FROM channels WHERE id = ?",
                                arguments: [channel])
        }
        #expect(stored == "NULLNULL")
    }

    @Test func itemDetailsAreStoredAndShown() async throws {
        var live = item("live")
        live.liveStatus = "live"
        var episode = item("ep")
        episode.explicit = false
        episode.episodeType = "bonus"
        episode.persons = [Person(name: "Ann", role: "host", href: "https://ex.com/ann", image: "https://ex.com/ann.jpg"),
                           Person(name: "Gus")]
        episode.funding = [Link(url: "https://ex.com/tip", title: nil)]
        try await poll(.changed(Validators(), Feed(kind: .podcast, title: "Show", items: [live, episode])))
        let liveDetails = try await t.library.itemDetails(id: try await t.library.id(of: "live"))
        #expect(liveDetails.liveStatus == "live" && liveDetails.explicit == nil && liveDetails.persons == [] && liveDetails.funding == [])
        let details = try await t.library.itemDetails(id: try await t.library.id(of: "ep"))
        #expect(details.explicit == false)
        #expect(details.episodeType == "bonus")
        #expect(details.liveStatus == nil)
        #expect(details.persons == episode.persons)
        #expect(details.funding == [Link(url: "https://ex.com/tip")])
        // Changed details update the row; an item without lists stores NULL, not "[]".
        episode.explicit = true
        episode.persons = []
        try await poll(.changed(Validators(), Feed(kind: .podcast, title: "Show", items: [live, episode])))
        let again = try await t.library.itemDetails(id: try await t.library.id(of: "ep"))
        #expect(again.explicit == true && again.persons == [])
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
