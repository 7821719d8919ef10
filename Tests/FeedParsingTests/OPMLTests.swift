import Foundation
import Testing
import TestSupport
@testable import FeedParsing

@Suite struct OPMLTests {
    /// fixtures/opml/, found from this file's path (tests run from any directory).
    static let fixtures = PackagePaths.fixture("opml").path

    @Test func newsboatExport() async throws {
        let feeds = try OPML.parse(contentsOf: Self.fixtures + "/newsboat.opml")
        #expect(feeds == [
            OPMLFeed(title: "The Field Show 東京", xmlURL: "https://feeds.example.com/the-field-show/rss.xml",
                     htmlURL: "https://the-field-show.example.com/"),
            OPMLFeed(title: "Tiny Radio", xmlURL: "https://www.youtube.com/feeds/videos.xml?channel_id=UClYa_2ryq4gxxhB0EGkCq2g",
                     htmlURL: "https://www.youtube.com/channel/UClYa_2ryq4gxxhB0EGkCq2g"),
            // newsboat writes empty titles and htmlUrls for feeds it never fetched.
            OPMLFeed(title: "https://example.org/feed.php?show=q&format=rss", xmlURL: "https://example.org/feed.php?show=q&format=rss"),
            OPMLFeed(title: "Q&A \"Briefing\"", xmlURL: "https://rumble.com/c/TinyBriefing0", htmlURL: "https://rumble.com/c/TinyBriefing0"),
        ])
    }

    @Test func gPodderExport() async throws {
        let feeds = try OPML.parse(contentsOf: Self.fixtures + "/gpodder.opml")
        // gPodder puts the description in `text`: `title` wins.
        #expect(feeds == [
            OPMLFeed(title: "The Deep Radio", xmlURL: "https://feeds.example.com/the-deep-radio-1/rss.xml"),
            OPMLFeed(title: "Noah Smith", xmlURL: "https://www.youtube.com/feeds/videos.xml?channel_id=UC0jnjoZXL6BEfbHnT6VxFFw"),
            OPMLFeed(title: "Café Crème & Co.", xmlURL: "http://podcasts.example.fr/cafe-creme.xml"),
        ])
    }

    @Test func nestedOutlinesAreFlattenedAndDeduplicated() async throws {
        let xml = """
            <?xml version="1.0" encoding="ISO-8859-1"?>
            <opml version="2.0"><head><title>x</title></head><body>
              <outline text="News">
                <outline text="Caf\u{E9}" type="rss" xmlURL="feed://a.example.com/rss"/>
                <outline text="Deeper"><outline text="B" xmlUrl=" https://b.example.com/feed "/></outline>
              </outline>
              <outline text="Folder without feeds"/>
              <outline text="A again" xmlUrl="https://a.example.com/rss"/>
              <outline text="C" url="https://c.example.com/feed"/>
            </body></opml>
            """
        // Latin-1 bytes, as the declaration says.
        let bytes = Array(xml.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) })
        #expect(try OPML.parse(bytes) == [
            OPMLFeed(title: "Café", xmlURL: "https://a.example.com/rss"),
            OPMLFeed(title: "B", xmlURL: "https://b.example.com/feed"),
            OPMLFeed(title: "C", xmlURL: "https://c.example.com/feed"),
        ])
    }

    @Test func entitiesAreNotExpandedAndNothingIsFetched() async throws {
        let dir = TempDir()
        let secret = dir.file("secret.txt")
        try "TOPSECRET".write(toFile: secret, atomically: true, encoding: .utf8)
        let xml = """
            <?xml version="1.0"?>
            <!DOCTYPE opml [<!ENTITY x SYSTEM "file://\(secret)"><!ENTITY y SYSTEM "http://127.0.0.1:9/nope">]>
            <opml version="2.0"><body><outline text="&x;&y;" xmlUrl="https://a.example.com/&x;"/></body></opml>
            """
        let feeds = try OPML.parse(Array(xml.utf8))
        #expect(feeds.count == 1)
        #expect(!(feeds.first?.title.contains("TOPSECRET") ?? true) && !(feeds.first?.xmlURL.contains("TOPSECRET") ?? true))
    }

    @Test func errorsNameTheFile() async {
        #expect(throws: OPMLError.empty(file: "a.opml")) { try OPML.parse([], file: "a.opml") }
        #expect(throws: OPMLError.notOPML(file: "b.opml", what: "root element is <rss>")) {
            try OPML.parse(Array("<rss version=\"2.0\"><channel/></rss>".utf8), file: "b.opml")
        }
        #expect(throws: OPMLError.self) { try OPML.parse(Array("\u{0}\u{1}garbage".utf8), file: "c.opml") }
        #expect(throws: OPMLError.io(file: "/nonexistent/x.opml", why: "no such file")) {
            try OPML.parse(contentsOf: "/nonexistent/x.opml")
        }
        #expect(OPMLError.notOPML(file: "b.opml", what: "root element is <rss>").description
                == "can't import b.opml: not an OPML document (root element is <rss>)")
    }

    /// A list of feed URLs is not OPML, and the error says what it is (it said `malformed XML: no
    /// root element`); other text is not OPML either.
    @Test func aListOfURLsIsNamedAsSuch() async throws {
        let list = "# mine\nhttps://a.example.com/feed.xml\n\n  itpc://b.example.com/rss \"tag\"\nhttp://c.example.com/\n"
        #expect(throws: OPMLError.urlList(file: "urls", count: 3)) { try OPML.parse(Array(list.utf8), file: "urls") }
        #expect(OPMLError.urlList(file: "urls", count: 3).description
                == "can't import urls: not an OPML document but a list of 3 URLs: subscribe to them with `feedctl channel add URL…` (it takes several)")
        #expect(throws: OPMLError.notOPML(file: "notes", what: "no XML in it")) { try OPML.parse(Array("some notes\nhttps://a.example.com/\n".utf8), file: "notes") }
        #expect(throws: OPMLError.notOPML(file: "one", what: "no XML in it")) { try OPML.parse(Array("ftp://a.example.com/feed\n".utf8), file: "one") }
    }

    /// `feedctl:platform` is read in feedctl's namespace, and as the bare prefix a hand-edited
    /// file may leave undeclared; an unknown value or another namespace's `platform` says nothing.
    @Test func platformsAreReadBack() async throws {
        let xml = """
            <opml version="2.0" xmlns:feedctl="\(OPML.namespace)" xmlns:other="urn:other"><body>
              <outline text="a" xmlUrl="http://127.0.0.1:1/a" feedctl:platform="youtube"/>
              <outline text="b" xmlUrl="http://127.0.0.1:1/b" feedctl:platform="martian"/>
              <outline text="c" xmlUrl="http://127.0.0.1:1/c" other:platform="rumble" platform="rumble"/>
            </body></opml>
            """
        #expect(try OPML.parse(Array(xml.utf8)).map(\.platform) == [.youtube, nil, nil])
        let undeclared = #"<opml version="2.0"><body><outline text="d" xmlUrl="http://127.0.0.1:1/d" feedctl:platform="rumble"/></body></opml>"#
        #expect(try OPML.parse(Array(undeclared.utf8)).map(\.platform) == [.rumble])
    }

    /// Debian's newsboat imports our export: every feed URL lands in its urls file.
    @Test func newsboatImportsOurExport() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/newsboat") else {
            Issue.record("newsboat is not installed (apt-get install newsboat)")
            return
        }
        let dir = TempDir()
        let (feeds, opml) = try exportForAnotherReader(into: dir)
        let urls = dir.file("urls")
        _ = FileManager.default.createFile(atPath: urls, contents: Data())
        _ = FileManager.default.createFile(atPath: dir.file("config"), contents: Data())
        // Bounded (ProcessRunner's time limit): a newsboat waiting on a terminal fails, not hangs.
        let result = try ProcessRunner.capture("/usr/bin/newsboat",
                                               ["-u", urls, "-c", dir.file("cache.db"), "-C", dir.file("config"), "-i", opml],
                                               environment: ["HOME": dir.path, "PATH": "/usr/bin:/bin"])
        #expect(result.status == 0, "\(result.stderr)")
        let imported = try String(contentsOfFile: urls, encoding: .utf8).split(separator: "\n")
            .map { String($0.split(separator: " ").first ?? "") }
        #expect(imported == feeds.map(\.xmlURL))
    }

    /// Debian's gPodder imports our export: its own OPML importer (gpodder.opml.Importer, run by
    /// the system Python that gPodder is installed for) finds every feed URL, in order.
    @Test func gPodderImportsOurExport() async throws {
        let module = "/usr/lib/python3/dist-packages/gpodder/opml.py"
        guard FileManager.default.fileExists(atPath: module) else {
            Issue.record("gPodder is not installed (apt-get install gpodder)")
            return
        }
        let dir = TempDir()
        let (feeds, opml) = try exportForAnotherReader(into: dir)
        let script = "import sys\nfrom gpodder import opml\nfor c in opml.Importer(sys.argv[1]).items: print(c['url'])"
        let result = try ProcessRunner.capture("/usr/bin/python3", ["-c", script, opml],
                                               environment: ["HOME": dir.path, "PATH": "/usr/bin:/bin"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.split(separator: "\n").map(String.init) == feeds.map(\.xmlURL))
    }

    /// What the other readers' tests import: feeds needing escaping (`&`, non-ASCII), each with
    /// its `feedctl:platform`, exported to `export.opml` in `dir`.
    private func exportForAnotherReader(into dir: TempDir) throws -> (feeds: [OPMLFeed], path: String) {
        let feeds = [OPMLFeed(title: "A & B", xmlURL: "https://feeds.example.com/a.xml?x=1&y=2", platform: .podcast),
                     OPMLFeed(title: "Tiny 東京", xmlURL: "https://www.youtube.com/feeds/videos.xml?channel_id=UCx",
                              htmlURL: "https://www.youtube.com/@tiny", platform: .youtube),
                     OPMLFeed(title: "Briefing", xmlURL: "https://rumble.com/c/Briefing", platform: .rumble)]
        let path = dir.file("export.opml")
        try OPML.export(feeds, dateCreated: 0).write(toFile: path, atomically: true, encoding: .utf8)
        return (feeds, path)
    }
}
