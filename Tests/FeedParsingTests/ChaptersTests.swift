@testable import FeedParsing
import Foundation
import LibraryStore
import TestSupport
import Testing

@Suite struct PodcastChaptersTests {
    private func parse(_ json: String) throws -> [PodcastChapter] { try PodcastChapters.parse(Array(json.utf8)) }

    @Test func parsesTheSpecExampleSorted() async throws {
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

    @Test func dropsHiddenAndBrokenEntriesAndNamesUntitledOnes() async throws {
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

    @Test func keepsOnlyWebLinks() async throws {
        let chapters = try parse("""
            {"chapters":[{"startTime":0,"title":"a","url":"https://example.com/a"},
             {"startTime":1,"title":"b","url":"javascript:alert(1)"},{"startTime":2,"title":"c","url":"http://x/ y"},
             {"startTime":3,"title":"d","url":7}]}
            """)
        #expect(chapters.map(\.url) == ["https://example.com/a", nil, nil, nil])
    }

    @Test func rejectsWhatIsNoChaptersFile() async {
        for junk in ["", "[]", "{\"version\":\"1.2.0\"}", "<html>", "{\"chapters\":{}}"] {
            #expect(throws: PodcastChapters.ParseError.self) { try parse(junk) }
        }
    }

    @Test func boundsHugeFiles() async throws {
        let many = (0..<6000).map { "{\"startTime\":\($0),\"title\":\"\(String(repeating: "x", count: 1000))\"}" }
        let chapters = try parse("{\"chapters\":[\(many.joined(separator: ","))]}")
        #expect(chapters.count == PodcastChapters.maxChapters)
        #expect(chapters.allSatisfy { $0.title.count == PodcastChapters.maxTitle })
    }
}
