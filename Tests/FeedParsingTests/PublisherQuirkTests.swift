import FeedModel
@testable import FeedParsing
import Foundation
import XCTest

/// What publishers actually serve (issue 17): roots in unexpected namespaces, undeclared
/// prefixes, the fallbacks between elements, repeated elements, language tags, truncation, and
/// the warnings that say what was recovered. One small fixture per quirk, exact values.
final class PublisherQuirkTests: XCTestCase {
    func testUserlandDefaultNamespaceIsRSS() throws {
        let feed = try Fixtures.parse("userland-rss.xml")
        XCTAssertEqual(feed.kind, .rss)
        XCTAssertEqual(feed.title, "Scripting News")
        XCTAssertEqual(feed.language, "en-us")
        let item = try XCTUnwrap(feed.items.first)
        XCTAssertEqual(feed.items.count, 1)
        XCTAssertEqual(item.title, "Userland item")
        XCTAssertEqual(item.guid, "http://scripting.example.com/2003/01/01#a")
        XCTAssertEqual(item.url, "http://scripting.example.com/2003/01/01")
        XCTAssertEqual(item.published, 1_041_422_400)
        XCTAssertEqual(item.description, "Read although the root is namespaced.")
        XCTAssertEqual(feed.warnings, ["the root element <rss> is in the unknown namespace http://backend.userland.com/rss2: read as RSS"])
    }

    func testAtomInAnUnknownNamespace() throws {
        let feed = try Fixtures.parse("atom-unknown-ns.xml")
        XCTAssertEqual(feed.kind, .atom)
        XCTAssertEqual(feed.title, "Brouillon Atom")
        XCTAssertEqual(feed.link, "https://draft.example.fr/")
        XCTAssertEqual(feed.author, "Claire Auteur")
        XCTAssertEqual(feed.language, "fr-FR")
        XCTAssertEqual(feed.selfURL, "https://draft.example.fr/atom.xml")
        XCTAssertEqual(feed.nextPage, "https://draft.example.fr/atom.xml?page=2")
        let entry = try XCTUnwrap(feed.items.first)
        XCTAssertEqual(entry.id, "urn:uuid:1225c695-cfb8-4ebb-aaaa-80da344efa6a")
        XCTAssertEqual(entry.title, "Une entrée")
        XCTAssertEqual(entry.url, "https://draft.example.fr/2005/entree")
        XCTAssertEqual(entry.published, 1_122_812_969)
        XCTAssertEqual(entry.description, "Lue malgré l'espace de noms inconnu.")
    }

    func testRDFItemsInAnUnknownNamespaceAndRDFAboutAsGuid() throws {
        let feed = try Fixtures.parse("rdf-unknown-ns.xml")
        XCTAssertEqual(feed.kind, .rss)
        XCTAssertEqual(feed.title, "Netscape RDF 0.90")
        XCTAssertEqual(feed.link, "http://mozilla.example.org/")
        XCTAssertEqual(feed.items.map(\.title), ["RDF item one", "RDF item two"])
        XCTAssertEqual(feed.items.map(\.guid), ["http://mozilla.example.org/news/1", nil])
        XCTAssertEqual(feed.items.map(\.id), ["http://mozilla.example.org/news/1", "http://mozilla.example.org/news/2.html"])
        // The known RSS 1.0 namespace: rdf:about is the guid too.
        let rdf = try Fixtures.parse("rdf.xml")
        XCTAssertEqual(rdf.items.map(\.guid), ["http://rdf.example.org/a", "http://rdf.example.org/b"])
        XCTAssertEqual(rdf.warnings, [])
    }

    func testBareChannelRoot() throws {
        let feed = try Fixtures.parse("channel-root.xml")
        XCTAssertEqual(feed.kind, .rss)
        XCTAssertEqual(feed.title, "Bare Channel")
        XCTAssertEqual(feed.description, "A channel without its rss element.")
        XCTAssertEqual(feed.items.map(\.title), ["Bare item"])
        XCTAssertEqual(feed.items.first?.published, 1_046_512_800)
    }

    func testUndeclaredPrefixesAreReadAsTheirNamespaces() throws {
        let feed = try Fixtures.parse("undeclared-prefixes.xml")
        XCTAssertEqual(feed.kind, .podcast)
        XCTAssertEqual(feed.author, "Pat Publisher")
        XCTAssertEqual(feed.image, "https://undeclared.example.com/art.jpg")
        XCTAssertEqual(feed.selfURL, "https://undeclared.example.com/feed.xml")
        XCTAssertEqual(feed.description, "Google Play description.")
        let item = try XCTUnwrap(feed.items.first)
        XCTAssertEqual(item.published, 1_706_933_106)
        XCTAssertEqual(item.duration, 754)
        XCTAssertEqual(item.explicit, true)
        XCTAssertEqual(item.thumbnail, "https://undeclared.example.com/1.jpg")
        XCTAssertEqual(item.description, "Notes from content:encoded.")
        XCTAssertEqual(item.transcriptURL, "https://undeclared.example.com/1.vtt")
        XCTAssertEqual(feed.warnings, [
            "undeclared namespace prefix atom (first on <atom:link>): read as http://www.w3.org/2005/Atom",
            "undeclared namespace prefix itunes (first on <itunes:author>): read as http://www.itunes.com/dtds/podcast-1.0.dtd",
            "undeclared namespace prefix googleplay (first on <googleplay:description>): read as http://www.google.com/schemas/play-podcasts/1.0",
            "undeclared namespace prefix dc (first on <dc:date>): read as http://purl.org/dc/elements/1.1/",
            "undeclared namespace prefix media (first on <media:thumbnail>): read as http://search.yahoo.com/mrss/",
            "undeclared namespace prefix content (first on <content:encoded>): read as http://purl.org/rss/1.0/modules/content/",
            "undeclared namespace prefix podcast (first on <podcast:transcript>): read as https://podcastindex.org/namespace/1.0",
            "undeclared namespace prefix foo (first on <foo:bar>): its elements are ignored",
        ])
    }

    func testItemFallbacksAndITunesInAnyCase() throws {
        let feed = try Fixtures.parse("fallbacks.xml")
        let items = feed.items
        XCTAssertEqual(items.map(\.title), ["dc-title", "dcterms-created", "dcterms-modified", "dc-date"])
        // Dates: dcterms:issued, dcterms:created (before dcterms:modified), dcterms:modified, dc:date (before dcterms:created).
        XCTAssertEqual(items.map(\.published), [1_704_067_200, 1_706_745_600, 1_709_251_200, 1_711_929_600])
        XCTAssertEqual(items.map(\.updated), [nil, 1_709_251_200, 1_709_251_200, nil])
        XCTAssertEqual(items.map(\.description), ["Description from dc:description.", "Summary from itunes:summary.",
                                                  "Subtitle from itunes:subtitle.", nil])
        XCTAssertEqual(items.map(\.author), ["Ivy Itunes", "Dora Creator", nil, nil])
        // itunes:Duration, itunes:EpisodeType, itunes:EXPLICIT; itunes:image with `url`.
        XCTAssertEqual(items[0].duration, 60)
        XCTAssertEqual(items[0].episodeType, "trailer")
        XCTAssertEqual(items[0].explicit, true)
        XCTAssertEqual(items[0].thumbnail, "https://fallbacks.example.com/1.jpg")
    }

    func testChannelFallbacksAndLanguage() throws {
        let feed = try Fixtures.parse("fallbacks.xml")
        XCTAssertEqual(feed.title, "Title From DC")
        XCTAssertEqual(feed.description, "Subtitle as the description.")   // itunes:Subtitle
        XCTAssertEqual(feed.author, "Owen Owner")                            // itunes:owner/itunes:name
        XCTAssertEqual(feed.image, "https://fallbacks.example.com/art-url-attribute.jpg")
        XCTAssertEqual(feed.language, "en-US")
        let other = try Fixtures.parse("fallbacks-channel.xml")
        XCTAssertEqual(other.description, "Channel description from dc:description.")
        XCTAssertEqual(other.author, "web@chan.example.com (Wendy Web)")     // webMaster
        XCTAssertEqual(other.image, "https://chan.example.com/image-url.png") // image/url
        XCTAssertEqual(other.language, "pt-BR")
        XCTAssertEqual(ItemNormalizer.languageTag(" en "), "en")
        XCTAssertEqual(ItemNormalizer.languageTag("zh_Hant_TW"), "zh-Hant-TW")
        XCTAssertEqual(ItemNormalizer.languageTag("en-us"), "en-us")
        XCTAssertNil(ItemNormalizer.languageTag("  "))
    }

    /// feedparser's rule: titles and an item's description keep their first occurrence, every
    /// other element its last; the enclosure is the first.
    func testRepeatedElements() throws {
        let feed = try Fixtures.parse("repeats.xml")
        XCTAssertEqual(feed.title, "First Channel Title")
        XCTAssertEqual(feed.description, "Second channel description.")
        XCTAssertEqual(feed.link, "https://repeats.example.com/two")
        let item = try XCTUnwrap(feed.items.first)
        XCTAssertEqual(item.title, "First title")
        XCTAssertEqual(item.description, "First description.")
        XCTAssertEqual(item.guid, "guid-last")
        XCTAssertEqual(item.id, "guid-last")
        XCTAssertEqual(item.url, "https://repeats.example.com/item-last")
        XCTAssertEqual(item.published, 1_704_153_600)
        XCTAssertEqual(item.author, "last@repeats.example.com (Last Author)")
        XCTAssertEqual(item.duration, 120)
        XCTAssertEqual(item.enclosure?.url, "https://cdn.repeats.example.com/first.mp3")
    }

    func testTruncatedItemIsDroppedAndSaid() throws {
        let feed = try Fixtures.parse("truncated-item.xml")
        XCTAssertEqual(feed.title, "Cut Short")
        XCTAssertEqual(feed.items.map(\.id), ["cut-1"])
        XCTAssertEqual(feed.items.first?.enclosure?.length, 1000)
        XCTAssertEqual(feed.warnings.last, "the document ends inside an item, which was dropped (\"Half an item\")")
        // A fixture cut inside its second item keeps only the first, complete one.
        let full = try Fixtures.bytes("rss2-podcast.xml")
        let partial = try FeedParser.parse(Array(full[..<(full.count - 200)]))
        XCTAssertEqual(partial.items.map(\.id), ["ep2-guid"])
    }

    func testPodcastDetails() throws {
        let feed = try Fixtures.parse("podcast-details.xml")
        XCTAssertEqual(feed.selfURL, "https://details.example.com/feed.xml")
        XCTAssertEqual(feed.nextPage, "https://details.example.com/feed.xml?page=2")
        XCTAssertEqual(feed.funding, [Link(url: "https://details.example.com/support", title: "Support the show")])
        XCTAssertEqual(feed.items.map(\.id), ["live-1", "details-1"])
        let live = feed.items[0]
        XCTAssertEqual(live.title, "Live now")
        XCTAssertEqual(live.liveStatus, "live")
        XCTAssertEqual(live.enclosure?.url, "https://live.details.example.com/stream.mp3")
        let episode = feed.items[1]
        XCTAssertNil(episode.liveStatus)
        XCTAssertEqual(episode.episodeType, "bonus")
        XCTAssertEqual(episode.explicit, false)
        XCTAssertEqual(episode.persons, [
            Person(name: "Ann Host", role: "host", href: "https://details.example.com/ann", image: "https://details.example.com/ann.jpg"),
            Person(name: "Gus Guest", role: "guest"),
        ])
        XCTAssertEqual(episode.funding, [Link(url: "https://details.example.com/tip/1", title: "Tip")])
        XCTAssertEqual(feed.warnings, [])
    }

    func testParseJSONCarriesWarningsAndDetails() throws {
        let feed = try Fixtures.parse("podcast-details.xml")
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(FeedJSON.document(feed).utf8)) as? [String: Any])
        XCTAssertEqual(json["warnings"] as? [String], [])
        XCTAssertEqual(json["self_url"] as? String, "https://details.example.com/feed.xml")
        XCTAssertEqual(json["next_page"] as? String, "https://details.example.com/feed.xml?page=2")
        XCTAssertEqual((json["funding"] as? [[String: Any]])?.first?["title"] as? String, "Support the show")
        let items = try XCTUnwrap(json["items"] as? [[String: Any]])
        XCTAssertEqual(items[0]["live_status"] as? String, "live")
        XCTAssertTrue(items[0]["explicit"] is NSNull)
        XCTAssertEqual(items[1]["explicit"] as? Bool, false)
        XCTAssertEqual(items[1]["episode_type"] as? String, "bonus")
        let persons = try XCTUnwrap(items[1]["persons"] as? [[String: Any]])
        XCTAssertEqual(persons.map { $0["name"] as? String }, ["Ann Host", "Gus Guest"])
        XCTAssertTrue(persons[1]["href"] is NSNull)
        XCTAssertEqual((items[1]["funding"] as? [[String: Any]])?.first?["url"] as? String, "https://details.example.com/tip/1")

        let broken = try Fixtures.parse("undeclared-prefixes.xml")
        let brokenJSON = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(FeedJSON.document(broken).utf8)) as? [String: Any])
        XCTAssertEqual(brokenJSON["warnings"] as? [String], broken.warnings)
        XCTAssertEqual(broken.warnings.count, 8)
    }

    /// A feed broken on every line keeps 20 warnings and says how many more there were.
    func testWarningsAreCapped() throws {
        var xml = "<rss version=\"2.0\"><channel><title>Many</title>"
        for i in 0..<30 { xml += "<item><title>t\(i)</title><guid>g\(i)</guid><p\(i):x>y</p\(i):x></item>" }
        xml += "</channel></rss>"
        let feed = try FeedParser.parse(Array(xml.utf8))
        XCTAssertEqual(feed.items.count, 30)
        XCTAssertEqual(feed.warnings.count, FeedWarnings.maxKept + 1)
        XCTAssertEqual(feed.warnings.first, "undeclared namespace prefix p0 (first on <p0:x>): its elements are ignored")
        XCTAssertEqual(feed.warnings.last, "and 10 more")
    }

    func testItemsWithoutAnIdAreCounted() throws {
        let xml = "<rss version=\"2.0\"><channel><title>No ids</title><item><title>a</title></item><item><title>b</title></item></channel></rss>"
        let feed = try FeedParser.parse(Array(xml.utf8))
        XCTAssertEqual(feed.items.map(\.title), ["a", "b"])
        XCTAssertEqual(feed.warnings, ["2 items have no guid, link or enclosure: identified by title and date, so a changed title makes a new item"])
    }

    /// libxml2's recoveries are said as it reports them, with their line.
    func testMismatchedTagsAreWarnings() throws {
        let xml = "<rss version=\"2.0\"><channel><title>Mis</title>\n<item><title>One</b></title><guid>m-1</guid></item>\n"
            + "<item><title>Two</title><guid>m-2</guid></item></channel></rss>\n"
        let feed = try FeedParser.parse(Array(xml.utf8))
        XCTAssertEqual(feed.items.map(\.title), ["One", "Two"])
        XCTAssertEqual(feed.warnings, [
            "line 2: Opening and ending tag mismatch: title line 2 and b",
            "line 2: Opening and ending tag mismatch: item line 2 and title",
            "line 2: Opening and ending tag mismatch: channel line 1 and item",
            "line 3: Opening and ending tag mismatch: rss line 1 and channel",
            "line 3: Extra content at the end of the document",
            "1 item has no guid, link or enclosure: identified by title and date, so a changed title makes a new item",
        ])
    }

    func testEncodingFallbackIsAWarning() throws {
        // Declared Latin-1, bytes UTF-8: read as UTF-8, and said.
        let feed = try Fixtures.parse("utf8-declared-latin1.xml")
        XCTAssertEqual(feed.warnings, ["declared iso-8859-1 but the bytes are UTF-8: read as UTF-8"])
        XCTAssertEqual(try Fixtures.parse("rss2-podcast.xml").warnings, [])
    }
}
