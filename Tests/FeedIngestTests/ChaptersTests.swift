import Foundation
import Testing
@testable import FeedIngest

@Suite struct PodcastChaptersTests {
    private func parse(_ json: String) throws -> [PodcastChapter] { try PodcastChapters.parse(Array(json.utf8)) }

    @Test func parsesTheSpecExampleSorted() throws {
        let chapters = try parse("""
            {"version":"1.2.0","chapters":[
              {"startTime":65.5,"title":"News","endTime":120},
              {"startTime":0,"title":"Intro","img":"https://x/i.jpg"},
              {"startTime":"200","title":"  Spaced\\n  out  "}]}
            """)
        #expect(chapters == [PodcastChapter(startTime: 0, title: "Intro"),
                             PodcastChapter(startTime: 65.5, endTime: 120, title: "News"),
                             PodcastChapter(startTime: 200, title: "Spaced out")])
    }

    @Test func dropsHiddenAndBrokenEntriesAndNamesUntitledOnes() throws {
        let chapters = try parse("""
            {"chapters":[{"startTime":0},{"startTime":-5,"title":"negative"},{"title":"no start"},
             {"startTime":10,"title":"hidden","toc":false},{"startTime":20,"title":"kept","toc":true},
             {"startTime":30,"title":"backwards end","endTime":25},{"startTime":40,"title":7}]}
            """)
        #expect(chapters == [PodcastChapter(startTime: 0, title: "Chapter 1"),
                             PodcastChapter(startTime: 20, title: "kept"),
                             PodcastChapter(startTime: 30, title: "backwards end"),
                             PodcastChapter(startTime: 40, title: "Chapter 7")])
    }

    @Test func rejectsWhatIsNoChaptersFile() {
        for junk in ["", "[]", "{\"version\":\"1.2.0\"}", "<html>", "{\"chapters\":{}}"] {
            #expect(throws: PodcastChapters.ParseError.self) { try parse(junk) }
        }
    }

    @Test func boundsHugeFiles() throws {
        let many = (0..<6000).map { "{\"startTime\":\($0),\"title\":\"\(String(repeating: "x", count: 1000))\"}" }
        let chapters = try parse("{\"chapters\":[\(many.joined(separator: ","))]}")
        #expect(chapters.count == PodcastChapters.maxChapters)
        #expect(chapters.allSatisfy { $0.title.count == PodcastChapters.maxTitle })
    }
}

@Suite struct StoreChaptersTests {
    @Test func chaptersURLAndCacheKeyedByURL() throws {
        let t = try TestLibrary()
        let channel = try t.library.addTestChannel("show")
        var episode = item("ep1")
        episode.chaptersURL = "https://example.com/ep1.json"
        _ = try t.library.ingest(items: [episode, item("ep2")], channelID: channel, now: 1)
        let id = try t.library.id(of: "ep1")
        #expect(try t.library.chaptersURL(itemID: id) == "https://example.com/ep1.json")
        #expect(try t.library.chaptersURL(itemID: t.library.id(of: "ep2")) == nil)
        #expect(throws: LibraryError.self) { try t.library.chaptersURL(itemID: 999) }

        #expect(try t.library.cachedChapters(itemID: id, url: "https://example.com/ep1.json") == nil)
        let body = Array("{\"chapters\":[]}".utf8)
        try t.library.cacheChapters(itemID: id, url: "https://example.com/ep1.json", body: body, now: 5)
        #expect(try t.library.cachedChapters(itemID: id, url: "https://example.com/ep1.json") == body)
        #expect(try t.library.cachedChapters(itemID: id, url: "https://example.com/other.json") == nil)
        try t.library.cacheChapters(itemID: id, url: "https://example.com/v2.json", body: Array("{}".utf8), now: 6)
        #expect(try t.library.cachedChapters(itemID: id, url: "https://example.com/v2.json") == Array("{}".utf8))
        #expect(try t.library.cachedChapters(itemID: id, url: "https://example.com/ep1.json") == nil)

        // The cache goes with the item.
        try t.library.removeChannel(id: channel)
        let rows = try t.library.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM chapters_cache") }
        #expect(rows == 0)
    }
}
