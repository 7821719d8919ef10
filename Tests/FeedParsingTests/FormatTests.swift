import FeedModel
@testable import FeedParsing
import LibraryStore
import XCTest

/// One fixture per format and version, every field asserted.
final class FormatTests: XCTestCase {
    func testRSS091WithExternalDoctypeAndRelativeLink() throws {
        let feed = try Fixtures.parse("rss091.xml", options: .init(documentURL: "http://www.scripting.com/rss.xml"))
        XCTAssertEqual(feed.kind, .rss)
        XCTAssertEqual(feed.title, "Scripting News")
        XCTAssertEqual(feed.link, "http://www.scripting.com/")
        XCTAssertEqual(feed.description, "A weblog about scripting & stuff.")
        XCTAssertEqual(feed.language, "en-us")
        XCTAssertEqual(feed.author, "dave@example.com (Dave)")
        XCTAssertEqual(feed.image, "http://www.scripting.com/gifs/tinyScriptingNews.gif")
        XCTAssertEqual(feed.items.count, 2)
        XCTAssertEqual(feed.items[0].id, "http://www.scripting.com/2000/06/giving.html")
        XCTAssertEqual(feed.items[0].title, "Giving the world a pluggable Gnutella")
        XCTAssertNil(feed.items[0].guid)
        XCTAssertNil(feed.items[0].published)
        XCTAssertEqual(feed.items[1].title, "Syndication <3")
        XCTAssertEqual(feed.items[1].url, "http://www.scripting.com/2000/06/syndication.html")
        XCTAssertEqual(feed.items[1].id, "http://www.scripting.com/2000/06/syndication.html")
        XCTAssertEqual(feed.items[1].description, "Relative link, resolved against the document URL.")
    }

    func testRSS092EnclosuresWithoutTitleOrGuid() throws {
        let feed = try Fixtures.parse("rss092.xml")
        XCTAssertEqual(feed.kind, .podcast)   // audio enclosures
        XCTAssertEqual(feed.title, "Dave Winer: Grateful Dead")
        XCTAssertEqual(feed.items.count, 2)
        let first = feed.items[0]
        XCTAssertEqual(first.title, "")
        XCTAssertEqual(first.id, "http://www.scripting.com/mp3s/weatherReportDicksPicsVol7.mp3")
        XCTAssertEqual(first.enclosure, Enclosure(url: "http://www.scripting.com/mp3s/weatherReportDicksPicsVol7.mp3",
                                                  type: "audio/mpeg", length: 6_182_912))
        XCTAssertEqual(first.description, "It's been a few days since I added a song to the Grateful Dead channel.")
        XCTAssertNil(first.url)
        XCTAssertEqual(feed.items[1].title, "Kansas City, 1972")
        XCTAssertEqual(feed.items[1].enclosure, Enclosure(url: "http://www.scripting.com/mp3s/kansasCity.mp3",
                                                          type: "audio/mpeg", length: nil))
    }

    func testRSS2PodcastWithITunesAndPodcastingNamespace() throws {
        let feed = try Fixtures.parse("rss2-podcast.xml")
        XCTAssertEqual(feed.kind, .podcast)
        XCTAssertEqual(feed.title, "The Example Show")
        XCTAssertEqual(feed.link, "https://show.example.com/")
        XCTAssertEqual(feed.description, "Weekly talks about examples.")
        XCTAssertEqual(feed.author, "Jane Host")
        XCTAssertEqual(feed.image, "https://show.example.com/art.jpg")   // itunes:image wins over <image>
        XCTAssertEqual(feed.language, "en")
        XCTAssertEqual(feed.selfURL, "https://feeds.example.com/show.xml")
        XCTAssertEqual(feed.funding, [Link(url: "https://show.example.com/donate", title: "Support us!")])
        XCTAssertEqual(feed.items.count, 2)

        let ep2 = feed.items[0]
        XCTAssertEqual(ep2.id, "ep2-guid")
        XCTAssertEqual(ep2.guid, "ep2-guid")
        XCTAssertEqual(ep2.title, "Episode 2: Chapters")
        XCTAssertEqual(ep2.url, "https://show.example.com/ep2")
        XCTAssertEqual(ep2.published, 1_773_129_600)
        XCTAssertEqual(ep2.duration, 3723)
        XCTAssertEqual(ep2.enclosure, Enclosure(url: "https://cdn.example.com/ep2.mp3", type: "audio/mpeg", length: 12_345_678))
        XCTAssertEqual(ep2.description, "Short description.")
        XCTAssertEqual(ep2.thumbnail, "https://show.example.com/ep2.jpg")
        XCTAssertEqual(ep2.episode, 2)
        XCTAssertEqual(ep2.season, 1)
        XCTAssertEqual(ep2.episodeType, "full")
        XCTAssertEqual(ep2.explicit, false)
        XCTAssertEqual(ep2.chaptersURL, "https://show.example.com/ep2/chapters.json")
        XCTAssertEqual(ep2.transcriptURL, "https://show.example.com/ep2/transcript.vtt")
        XCTAssertEqual(ep2.persons, [
            Person(name: "Jane Host", role: "host", href: "https://example.com/jane", image: "https://example.com/jane.jpg"),
            Person(name: "Sam Guest", role: "guest"),
        ])
        XCTAssertEqual(ep2.funding, [Link(url: "https://show.example.com/ep2/tip", title: "Tip this episode")])

        let ep1 = feed.items[1]
        XCTAssertEqual(ep1.id, "https://show.example.com/ep1")
        XCTAssertEqual(ep1.url, "https://show.example.com/ep1")   // permalink guid, no <link>
        XCTAssertEqual(ep1.published, 1_772_542_800)
        XCTAssertEqual(ep1.duration, 2730)
        XCTAssertEqual(ep1.enclosure, Enclosure(url: "https://cdn.example.com/ep1.m4a", type: "audio/x-m4a", length: nil))
        XCTAssertEqual(ep1.description, "Only show notes here.")   // content:encoded when no description
        XCTAssertEqual(ep1.explicit, true)
        XCTAssertNil(ep1.episode)
    }

    func testPodcastingNamespaceGitHubURI() throws {
        let feed = try Fixtures.parse("podcast-github-ns.xml")
        XCTAssertEqual(feed.kind, .podcast)
        XCTAssertEqual(feed.items.map(\.chaptersURL), ["https://old.example.com/1.json"])
        XCTAssertEqual(feed.items.map(\.transcriptURL), ["https://old.example.com/1.srt"])
        XCTAssertEqual(feed.items.first?.enclosure?.length, 100)
    }

    func testRSS10RDF() throws {
        let feed = try Fixtures.parse("rdf.xml")
        XCTAssertEqual(feed.kind, .rss)
        XCTAssertEqual(feed.title, "RDF Site Summary")
        XCTAssertEqual(feed.link, "http://rdf.example.org/")
        XCTAssertEqual(feed.description, "An RSS 1.0 feed.")
        XCTAssertEqual(feed.language, "de")
        XCTAssertEqual(feed.image, "http://rdf.example.org/logo.png")
        XCTAssertEqual(feed.items.map(\.title), ["First RDF item", "Second RDF item"])
        XCTAssertEqual(feed.items.map(\.id), ["http://rdf.example.org/a", "http://rdf.example.org/b"])
        XCTAssertEqual(feed.items.map(\.published), [1_767_319_445, 1_767_398_400])
        XCTAssertEqual(feed.items[0].author, "Erika Muster")
        XCTAssertEqual(feed.items[0].description, "Encoded content.")
        XCTAssertEqual(feed.items[1].description, "Plain description.")
    }

    func testAtom03() throws {
        let feed = try Fixtures.parse("atom03.xml")
        XCTAssertEqual(feed.kind, .atom)
        XCTAssertEqual(feed.title, "Atom 0.3 Weblog")
        XCTAssertEqual(feed.link, "http://atom03.example.org/")
        XCTAssertEqual(feed.description, "Still Atom 0.3 after all these years")
        XCTAssertEqual(feed.author, "Mark P")
        XCTAssertEqual(feed.items.count, 1)
        let e = feed.items[0]
        XCTAssertEqual(e.id, "tag:atom03.example.org,2005:entry")
        XCTAssertEqual(e.url, "http://atom03.example.org/2005/07/31/entry")
        XCTAssertEqual(e.published, 1_122_827_369)
        XCTAssertEqual(e.updated, 1_122_890_400)
        XCTAssertEqual(e.description, "Escaped & content")
    }

    func testAtom10XMLBaseAndRelativeLinks() throws {
        let feed = try Fixtures.parse("atom10-base.xml", options: .init(documentURL: "https://ignored.example.org/x.xml"))
        XCTAssertEqual(feed.kind, .podcast)   // an audio enclosure
        XCTAssertEqual(feed.title, "Atom Blog")
        XCTAssertEqual(feed.description, "Relative links everywhere")
        XCTAssertEqual(feed.link, "https://blog.example.com/")
        XCTAssertEqual(feed.selfURL, "https://blog.example.com/feeds/atom.xml")
        XCTAssertEqual(feed.image, "https://blog.example.com/logo.png")
        XCTAssertEqual(feed.language, "fr")
        XCTAssertEqual(feed.author, "Feed Author")
        XCTAssertEqual(feed.items.count, 2)
        let first = feed.items[0]
        XCTAssertEqual(first.title, "Bold & brave")
        XCTAssertEqual(first.url, "https://blog.example.com/feeds/posts/1")
        XCTAssertEqual(first.enclosure, Enclosure(url: "https://blog.example.com/media/1.mp3", type: "audio/mpeg", length: 1337))
        XCTAssertEqual(first.id, "urn:uuid:1225c695-cfb8-4ebb-aaaa-80da344efa6a")
        XCTAssertEqual(first.published, 1_769_846_400)
        XCTAssertEqual(first.updated, 1_769_970_602)
        XCTAssertEqual(first.author, "Entry Author")
        XCTAssertEqual(first.description, "Some text.")
        let second = feed.items[1]
        XCTAssertEqual(second.url, "https://other.example.net/a/b/c")   // entry-level xml:base
        XCTAssertEqual(second.published, 1_769_990_400)                 // no <published>: updated
        XCTAssertEqual(second.description, "XHTML content")
    }

    func testYouTubeChannel() throws {
        let feed = try Fixtures.parse("youtube-channel.xml")
        XCTAssertEqual(feed.kind, .youtube)
        XCTAssertEqual(feed.title, "Example Channel")
        XCTAssertEqual(feed.channelID, "UCabcdefghijklmnopqrstuv")
        XCTAssertEqual(feed.link, "https://www.youtube.com/channel/UCabcdefghijklmnopqrstuv")
        XCTAssertEqual(feed.selfURL, "http://www.youtube.com/feeds/videos.xml?channel_id=UCabcdefghijklmnopqrstuv")
        XCTAssertEqual(feed.items.count, 2)
        let video = feed.items[0]
        XCTAssertEqual(video.id, "dQw4w9WgXcQ")
        XCTAssertEqual(video.title, "A regular video & more")
        XCTAssertEqual(video.url, "https://www.youtube.com/watch?v=dQw4w9WgXcQ")
        XCTAssertEqual(video.published, 1_790_856_000)
        XCTAssertEqual(video.updated, 1_790_929_800)
        XCTAssertNil(video.duration)
        XCTAssertNil(video.enclosure)
        XCTAssertEqual(video.thumbnail, "https://i4.ytimg.com/vi/dQw4w9WgXcQ/hqdefault.jpg")
        XCTAssertEqual(video.views, 123_456)
        XCTAssertEqual(video.description, "Line one. Line two.")
        XCTAssertEqual(video.author, "Example Channel")
        XCTAssertFalse(video.isShort)
        let short = feed.items[1]
        XCTAssertEqual(short.id, "shrt_ID-123")
        XCTAssertEqual(short.url, "https://www.youtube.com/shorts/shrt_ID-123")
        XCTAssertTrue(short.isShort)
        XCTAssertEqual(short.views, 0)
        XCTAssertNil(short.description)
    }

    func testYouTubeShortsPlaylistMarksEveryItemShort() throws {
        let feed = try Fixtures.parse("youtube-shorts-playlist.xml")
        XCTAssertEqual(feed.kind, .youtube)
        XCTAssertEqual(feed.channelID, "UCabcdefghijklmnopqrstuv")   // feed-level id lacks UC
        XCTAssertEqual(feed.items.map(\.id), ["AAAAAAAAAAA"])
        XCTAssertEqual(feed.items.map(\.isShort), [true])
        XCTAssertEqual(feed.items.map(\.url), ["https://www.youtube.com/watch?v=AAAAAAAAAAA"])
        XCTAssertEqual(feed.items.map(\.views), [42])
    }

    func testPodcastSchemesRewrittenAndHashIdentity() throws {
        let feed = try Fixtures.parse("schemes.xml")
        XCTAssertEqual(feed.link, "https://schemes.example.com/")
        XCTAssertEqual(feed.selfURL, "https://schemes.example.com/feed.xml")
        XCTAssertEqual(feed.items[0].enclosure?.url, "https://schemes.example.com/1.mp3")
        XCTAssertEqual(feed.items[0].id, "https://schemes.example.com/1.mp3")
        XCTAssertEqual(feed.items[1].url, "https://schemes.example.com/2")
        XCTAssertEqual(feed.items[1].id, "https://schemes.example.com/2")
        let anonymous = feed.items[2]
        XCTAssertEqual(anonymous.published, 1_767_607_200)
        XCTAssertEqual(anonymous.id, "sha:" + ItemIdentity.fnv1a64("No identity at all|1767607200"))
        // Stable across re-parses.
        XCTAssertEqual(try Fixtures.parse("schemes.xml").items[2].id, anonymous.id)
    }
}
