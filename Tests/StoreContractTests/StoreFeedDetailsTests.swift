import FeedModel
import Foundation
import LibraryStore
import TestSupport
import XCTest

/// What the parser reads reaches the library (issue 17): a channel's current parse warnings,
/// self URL, next page and funding; an item's explicit flag, episode type, live status, persons
/// and funding.
final class StoreFeedDetailsTests: XCTestCase {
    private func poll(_ library: any UserLibrary, _ channel: Int64, _ outcome: Poll.Outcome) async throws {
        for result in await library.apply([Poll(subject: .channel(id: channel), outcome: outcome)], now: 100) { _ = try result.get() }
    }

    func testChannelWarningsAreReplacedByEachParsedBody() async throws {
        try await forEachEngine { db in
            let library = db.owner
            let channel = try await library.addTestChannel("show")
            let broken = Feed(kind: .rss, title: "Show", selfURL: "https://ex.com/feed.xml", nextPage: "https://ex.com/feed.xml?page=2",
                              funding: [Link(url: "https://ex.com/give", title: "Give")], items: [item("a")],
                              warnings: ["line 3: Opening and ending tag mismatch: title line 3 and item", "and 4 more"])
            try await poll(library, channel, .changed(Validators(bodyHash: "h1"), broken))
            var summary = try await library.channelSummary(id: channel)
            XCTAssertEqual(summary.warnings, ["line 3: Opening and ending tag mismatch: title line 3 and item", "and 4 more"])
            XCTAssertEqual(summary.selfURL, "https://ex.com/feed.xml")
            XCTAssertEqual(summary.nextPage, "https://ex.com/feed.xml?page=2")
            XCTAssertEqual(summary.funding, [Link(url: "https://ex.com/give", title: "Give")])
            await assertEqual(try await library.channelSummaries().map(\.warnings), [summary.warnings])

            // An unchanged body (304 or the same hash) keeps them: it is the same document.
            try await poll(library, channel, .unchanged(Validators()))
            await assertEqual(try await library.channelSummary(id: channel).warnings.count, 2)
            // A failed fetch keeps them too: its error is last_error.
            try await poll(library, channel, .failed(message: "HTTP 500", retryAfter: nil))
            await assertEqual(try await library.channelSummary(id: channel).warnings.count, 2)
            // A mended feed clears them.
            try await poll(library, channel, .changed(Validators(bodyHash: "h2"), Feed(kind: .rss, title: "Show", items: [item("a")])))
            summary = try await library.channelSummary(id: channel)
            XCTAssertEqual(summary.warnings, [])
            XCTAssertNil(summary.selfURL)
            XCTAssertNil(summary.nextPage)
            XCTAssertEqual(summary.funding, [])
        }
    }

    func testItemDetailsAreStoredAndShown() async throws {
        try await forEachEngine { db in
            let library = db.owner
            let channel = try await library.addTestChannel("show")
            var live = item("live")
            live.liveStatus = "live"
            var episode = item("ep")
            episode.explicit = false
            episode.episodeType = "bonus"
            episode.persons = [Person(name: "Ann", role: "host", href: "https://ex.com/ann", image: "https://ex.com/ann.jpg"),
                               Person(name: "Gus")]
            episode.funding = [Link(url: "https://ex.com/tip", title: nil)]
            try await poll(library, channel, .changed(Validators(), Feed(kind: .podcast, title: "Show", items: [live, episode])))
            let liveDetails = try await library.itemDetails(id: try await library.id(of: "live"))
            XCTAssertEqual(liveDetails.liveStatus, "live")
            XCTAssertNil(liveDetails.explicit)
            XCTAssertEqual(liveDetails.persons, [])
            XCTAssertEqual(liveDetails.funding, [])
            let details = try await library.itemDetails(id: try await library.id(of: "ep"))
            XCTAssertEqual(details.explicit, false)
            XCTAssertEqual(details.episodeType, "bonus")
            XCTAssertNil(details.liveStatus)
            XCTAssertEqual(details.persons, episode.persons)
            XCTAssertEqual(details.funding, [Link(url: "https://ex.com/tip")])
            // Changed details update the item.
            episode.explicit = true
            episode.persons = []
            try await poll(library, channel, .changed(Validators(), Feed(kind: .podcast, title: "Show", items: [live, episode])))
            let again = try await library.itemDetails(id: try await library.id(of: "ep"))
            XCTAssertEqual(again.explicit, true)
            XCTAssertEqual(again.persons, [])
        }
    }
}
