import FeedModel
import TestSupport
import XCTest
@testable import FeedParsing

/// Hand-written Rumble listing pages (fixtures/feeds/rumble/), every field exact.
final class RumbleParserTests: XCTestCase {
    func testCardsLayout() throws {
        let feed = try RumbleParser.parse(try RumbleTestSupport.fixture("feeds/rumble/cards-page.html"),
                                          documentURL: "https://rumble.com/c/CafeTalks/videos")
        XCTAssertEqual(feed.kind, .rumble)
        XCTAssertEqual(feed.title, "Café Talks & More")
        XCTAssertEqual(feed.link, "https://rumble.com/c/CafeTalks")
        XCTAssertEqual(feed.channelID, "CafeTalks")
        XCTAssertEqual(feed.image, "https://1a-1791.com/video/z8/avatar/cafetalks.jpeg")
        XCTAssertEqual(feed.description, "Café Talks' Rumble channel: long conversations.")
        XCTAssertEqual(feed.nextPage, "https://rumble.com/c/CafeTalks/videos?page=2")

        // The featured card repeats v5feat3 above the grid: it appears once, at its grid place.
        XCTAssertEqual(feed.items.map(\.id), ["v5live01", "v5upco02", "v5feat3", "v5abc04"])

        let live = feed.items[0]
        XCTAssertEqual(live.url, "https://rumble.com/v5live01-live-now-ask-me-anything.html")
        XCTAssertEqual(live.title, "LIVE NOW: ask me anything")
        XCTAssertEqual(live.liveStatus, "live")
        XCTAssertNil(live.duration)
        XCTAssertEqual(live.views, 1520)
        XCTAssertEqual(live.published, 1_792_063_800)
        XCTAssertEqual(live.thumbnail, "https://1a-1791.com/thumbs/live.jpg")
        XCTAssertEqual(live.author, "Café Talks & More")
        XCTAssertFalse(live.isShort)

        let upcoming = feed.items[1]
        XCTAssertEqual(upcoming.title, "Tomorrow's stream")
        XCTAssertEqual(upcoming.liveStatus, "upcoming")
        XCTAssertNil(upcoming.duration)
        XCTAssertNil(upcoming.views, "an upcoming stream's card shows no count: unknown, not 0")
        XCTAssertEqual(upcoming.published, 1_792_195_200)
        XCTAssertNil(upcoming.author)

        let long = feed.items[2]
        XCTAssertEqual(long.url, "https://rumble.com/v5feat3-the-featured-one.html")
        XCTAssertEqual(long.title, "The featured one")
        XCTAssertEqual(long.duration, 3723)
        XCTAssertEqual(long.views, 98765)
        XCTAssertEqual(long.published, 1_790_870_400)
        XCTAssertNil(long.liveStatus)

        let short = feed.items[3]
        XCTAssertEqual(short.title, "Q&A: bread & wine — “why?”")
        XCTAssertEqual(short.duration, 754)
        XCTAssertEqual(short.views, 0)
        XCTAssertEqual(short.published, 1_790_823_909)
        XCTAssertEqual(short.thumbnail, "https://rumble.com/thumbs/relative.jpg")
    }

    func testGridJSONLastPage() throws {
        let feed = try RumbleParser.parse(try RumbleTestSupport.fixture("feeds/rumble/grid-last-page.html"),
                                          documentURL: "https://rumble.com/user/OldSchool?page=3")
        XCTAssertEqual(feed.title, "Old School Shop")
        XCTAssertEqual(feed.channelID, "OldSchool")
        XCTAssertEqual(feed.link, "https://rumble.com/user/OldSchool")
        XCTAssertNil(feed.nextPage, "a last page has no next link (only prev and numbered pages)")
        XCTAssertNil(feed.image)

        // The ad, the item whose title is a number, the item without a URL and the repeat of
        // v6aaa01 are dropped; the rest keep document order.
        XCTAssertEqual(feed.items.map(\.id), ["v6aaa01", "v6aaa02", "v6aaa03", "v6aaa04", "v6aaa07"])

        let lathe = feed.items[0]
        XCTAssertEqual(lathe.title, "Restoring a 1962 lathe & more")
        XCTAssertEqual(lathe.url, "https://rumble.com/v6aaa01-restoring-a-1962-lathe.html")
        XCTAssertEqual(lathe.duration, 5025)
        XCTAssertEqual(lathe.views, 1_234_567)
        XCTAssertEqual(lathe.published, 1_785_762_900)
        XCTAssertEqual(lathe.thumbnail, "https://1a-1791.com/thumbs/lathe.jpg")
        XCTAssertEqual(lathe.author, "Old School Shop")
        XCTAssertFalse(lathe.isShort)

        let tip = feed.items[1]
        XCTAssertEqual(tip.title, "One-minute tip: sharpening é 🔧")
        XCTAssertEqual(tip.url, "https://rumble.com/v6aaa02-one-minute-tip.html")
        XCTAssertEqual(tip.duration, 58)
        XCTAssertEqual(tip.published, 1_785_693_600)
        XCTAssertTrue(tip.isShort)

        let live = feed.items[2]
        XCTAssertEqual(live.liveStatus, "live")
        XCTAssertNil(live.duration)
        XCTAssertEqual(live.views, 45)
        XCTAssertEqual(live.published, 1_785_592_800)
        XCTAssertNil(live.thumbnail)
        XCTAssertNil(live.author)

        let upcoming = feed.items[3]
        XCTAssertEqual(upcoming.liveStatus, "upcoming")
        XCTAssertNil(upcoming.duration)
        XCTAssertEqual(upcoming.views, 0)
        XCTAssertEqual(upcoming.published, 1_787_270_400)

        let loose = feed.items[4]
        XCTAssertEqual(loose.duration, 95)
        XCTAssertEqual(loose.views, 12)
        XCTAssertNil(loose.published)
        XCTAssertNil(loose.liveStatus)
    }

    func testNextPageResolvesAgainstTheCanonicalLinkWithoutADocumentURL() throws {
        let feed = try RumbleParser.parse(try RumbleTestSupport.fixture("feeds/rumble/cards-page.html"), documentURL: nil)
        XCTAssertEqual(feed.nextPage, "https://rumble.com/c/CafeTalks/videos?page=2")
        XCTAssertEqual(feed.channelID, "CafeTalks")
        XCTAssertEqual(feed.items.count, 4)
    }

    func testNextPageFollowsTheServerThePageCameFrom() throws {
        let feed = try RumbleParser.parse(try RumbleTestSupport.fixture("feeds/rumble/cards-page.html"),
                                          documentURL: "http://127.0.0.1:8080/c/CafeTalks/videos")
        XCTAssertEqual(feed.nextPage, "http://127.0.0.1:8080/c/CafeTalks/videos?page=2")
        XCTAssertEqual(feed.items[3].url, "https://rumble.com/v5abc04-q-a-bread-wine.html", "video pages live on rumble.com")
    }

    func testHTMLWithoutAListingIsNotAFeed() throws {
        let bytes = try RumbleTestSupport.fixture("feeds/rumble/not-a-listing.html")
        XCTAssertThrowsError(try RumbleParser.parse(bytes, documentURL: "https://rumble.com/")) { error in
            XCTAssertEqual(error as? FeedError, .notAFeed("an HTML page without a feed"))
            XCTAssertEqual((error as? FeedError)?.description, "not a feed: an HTML page without a feed")
        }
    }

    func testEmptyInputIsEmpty() {
        XCTAssertThrowsError(try RumbleParser.parse([], documentURL: nil)) { error in
            XCTAssertEqual(error as? FeedError, .empty)
        }
    }

    func testBinaryGarbageIsNotAFeed() {
        var generator = SplitMix64(seed: 42)
        let garbage = (0..<65_536).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        XCTAssertThrowsError(try RumbleParser.parse(garbage, documentURL: nil)) { error in
            XCTAssertEqual(error as? FeedError, .notAFeed("an HTML page without a feed"))
        }
    }

    func testTruncatedPagesKeepTheCardsTheyHold() throws {
        let bytes = try RumbleTestSupport.fixture("feeds/rumble/cards-page.html")
        // Cut inside the fourth card's footer: the first three cards are complete.
        let cut = try XCTUnwrap(String(decoding: bytes, as: UTF8.self).range(of: "Q&amp;A:   bread"))
        let prefix = Array(String(decoding: bytes, as: UTF8.self)[..<cut.lowerBound].utf8)
        let feed = try RumbleParser.parse(prefix, documentURL: nil)
        XCTAssertEqual(feed.items.prefix(3).map(\.id), ["v5live01", "v5upco02", "v5feat3"])
        XCTAssertNil(feed.nextPage)
        // Every prefix parses or throws a FeedError; none crashes.
        for length in stride(from: 0, to: bytes.count, by: 97) {
            _ = try? RumbleParser.parse(Array(bytes[..<length]), documentURL: nil)
        }
    }
}

extension RumbleParserTests {
    func testHostileNestingNeitherCrashesNorHangs() throws {
        // 100,000 nested elements around a card, then JSON nested 100,000 deep in the grid.
        // Issue 14 made nesting past ParseLimits.maxDepth an error for the page (libxml2's HTML
        // parser costs depth × stray end tags); it used to be read through to the card.
        let card = #"<div class="videostream thumbnail__grid--item"><a class="videostream__link" href="/v1abc-x.html">x</a></div>"#
        let deepHTML = String(repeating: "<div><span>", count: 100_000) + card
        XCTAssertThrowsError(try RumbleParser.parse(Array(deepHTML.utf8), documentURL: nil)) { error in
            XCTAssertEqual(error as? FeedError, .overLimit(.depth(ParseLimits.maxDepth)))
        }
        let shallowHTML = String(repeating: "<div><span>", count: 90) + card
        XCTAssertEqual(try RumbleParser.parse(Array(shallowHTML.utf8), documentURL: nil).items.map(\.id), ["v1abc"])

        let deepJSON = #"<rum-videos-grid><script type="application/json">{"items":"# + String(repeating: "[", count: 100_000)
            + "</script></rum-videos-grid>"
        let grid = try RumbleParser.parse(Array(deepJSON.utf8), documentURL: nil)
        XCTAssertEqual(grid.items, [])
    }
}

extension RumbleParserTests {
    private static let minimalPage = #"""
        <html><body><section class="channel-listing__container">
        <div class="videostream thumbnail__grid--item"><a class="videostream__link" href="/v9zz1-a.html?e9s=1">a</a>
        <h3 class="thumbnail__title">A</h3></div>
        <nav class="paginator"><ul><li class="paginator--li paginator--li--next"><a href="?page=3">next</a></li></ul></nav>
        </section></body></html>
        """#

    func testQueryOnlyNextLinkReplacesThePageNumber() throws {
        let feed = try RumbleParser.parse(Array(Self.minimalPage.utf8), documentURL: "https://rumble.com/c/Some1/videos?page=2")
        XCTAssertEqual(feed.nextPage, "https://rumble.com/c/Some1/videos?page=3")
        XCTAssertEqual(feed.channelID, "Some1", "from the document URL when there is no canonical link")
        XCTAssertEqual(feed.link, "https://rumble.com/c/Some1")
        XCTAssertEqual(feed.title, "Some1", "no header, no og:title, no <title>: the channel's name")
        XCTAssertEqual(feed.items.map(\.url), ["https://rumble.com/v9zz1-a.html"])
    }

    func testALocalFileURLNamesNoChannel() throws {
        let feed = try RumbleParser.parse(Array(Self.minimalPage.utf8), documentURL: "file:///tmp/c/notachannel/x.html")
        XCTAssertNil(feed.channelID)
        XCTAssertNil(feed.link)
        XCTAssertEqual(feed.title, "")
    }

    func testMutatedPagesNeverCrash() throws {
        var generator = SplitMix64(seed: 7)
        for name in ["cards-page.html", "grid-last-page.html"] {
            let original = try RumbleTestSupport.fixture("feeds/rumble/" + name)
            for _ in 0..<200 {
                var bytes = original
                for _ in 0..<8 {
                    let at = Int(generator.next() % UInt64(bytes.count))
                    switch generator.next() % 3 {
                    case 0: bytes[at] = UInt8(truncatingIfNeeded: generator.next())
                    case 1: bytes.remove(at: at)
                    default: bytes.insert(contentsOf: Array("<\"'>&[{".utf8).shuffled(using: &generator).prefix(2), at: at)
                    }
                }
                do { _ = try RumbleParser.parse(bytes, documentURL: "https://rumble.com/c/X/videos") }
                catch { XCTAssertTrue([.notAFeed("an HTML page without a feed"), .empty].contains(error), "\(error)") }
            }
        }
    }
}

extension RumbleParserTests {
    func testAWrongCharsetDeclarationIsIgnored() throws {
        let page = #"<html><head><meta charset="iso-8859-1"><title>Ünïcödé</title></head><body>"#
            + #"<div class="videostream thumbnail__grid--item"><a class="videostream__link" href="/v1ab-x.html">x</a>"#
            + #"<h3 class="thumbnail__title">Crème brûlée 🍮</h3></div></body></html>"#
        let feed = try RumbleParser.parse(Array(page.utf8), documentURL: nil)
        XCTAssertEqual(feed.title, "Ünïcödé")
        XCTAssertEqual(feed.items.map(\.title), ["Crème brûlée 🍮"])
    }
}
