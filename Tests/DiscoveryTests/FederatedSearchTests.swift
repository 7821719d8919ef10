import Discovery
import FeedModel
import Foundation
import HTTPFetch
import LibraryStore
import TestSupport
import XCTest

/// The federation: providers asked at once, each bounded, merged. The services are stood in
/// for by a server on 127.0.0.1 (see `ProviderTests`); `/delay/S/…` answers S seconds late.
final class FederatedSearchTests: XCTestCase {
    let fetcher = Fetcher()

    func testAProviderTimingOutOrFailingLeavesTheOthersAndIsNamed() async throws {
        let server = try TestHTTPServer()
        try server.write("itunes/search", ServiceShapes.itunesPodcasts(feeds: [("Sourdough Weekly", "https://feeds.example.com/sourdough.xml")]))
        try server.write("rumble/search/video", ServiceShapes.rumbleVideoSearch)
        let providers: [any DiscoveryProvider] = [
            // Answers after 5 s; its timeout is 0.5 s.
            ITunesProvider(baseURL: server.url("/delay/5/itunes"), limits: ProviderLimits(timeout: 0.5), fetcher: fetcher),
            // Its service answers 404.
            RumbleProvider(baseURL: server.url("/missing"), fetcher: fetcher),
            RumbleProvider(baseURL: server.url("/rumble"), fetcher: fetcher),
        ]
        let answer = await FederatedSearch(providers: providers, channels: nil).search(DiscoveryRequest(query: "bread", kind: .videos))
        XCTAssertEqual(answer.results.map(\.title), ["Sourdough at home", "Rye loaf"], "the working provider's results are all there")
        XCTAssertEqual(answer.outcomes.map(\.provider), ["itunes", "rumble", "rumble"])
        XCTAssertEqual(answer.outcomes[0].failure?.message, "timed out after 0.5 s")
        XCTAssertEqual(answer.outcomes[1].failure?.message, "\(server.url("/missing/search/video")): HTTP 404 Not Found")
        XCTAssertNil(answer.outcomes[2].failure)
        XCTAssertEqual(answer.failed.map(\.provider), ["itunes", "rumble"])
    }

    func testTheSizeCapStopsALargeAnswer() async throws {
        let server = try TestHTTPServer()
        let feeds = (0..<40).map { ("Podcast \($0)", "https://feeds.example.com/\($0).xml") }
        try server.write("itunes/search", ServiceShapes.itunesPodcasts(feeds: feeds))
        try server.write("rumble/search/channel", ServiceShapes.rumbleChannelSearch)
        let providers: [any DiscoveryProvider] = [
            ITunesProvider(baseURL: server.url("/itunes"), limits: ProviderLimits(maxBytes: 4096), fetcher: fetcher),
            RumbleProvider(baseURL: server.url("/rumble"), fetcher: fetcher),
        ]
        let answer = await FederatedSearch(providers: providers, channels: nil).search(DiscoveryRequest(query: "x", kind: .channels))
        XCTAssertEqual(answer.outcomes[0].failure?.message, "\(server.url("/itunes/search")): response larger than 4 KB")
        XCTAssertEqual(answer.results.map(\.title), ["BreadTV", "ryeguy"])
    }

    func testYtdlpPastItsTimeoutIsStoppedAndNamed() async throws {
        let dir = try PackagePaths.temporaryDirectory(self)
        let ytdlp = try StandInYtdlp(dir: dir, delay: 30)
        let answer = await FederatedSearch(providers: [YouTubeProvider(executable: ytdlp.path, limits: ProviderLimits(timeout: 0.5))],
                                           channels: nil).search(DiscoveryRequest(query: "x"))
        XCTAssertEqual(answer.outcomes.first?.failure?.message, "timed out after 0.5 s")
        XCTAssertTrue(answer.results.isEmpty)
    }

    func testResultsAreInterleavedDeduplicatedAndMarkedSubscribed() async throws {
        let server = try TestHTTPServer()
        // Both podcast services find "Sourdough Weekly" (the same feed, spelled differently).
        try server.write("itunes/search", ServiceShapes.itunesPodcasts(feeds: [("Sourdough Weekly", "https://feeds.example.com/sourdough.xml"),
                                                                              ("Crumb & Co", "https://feeds.example.com/crumb.xml")]))
        try server.write("pi/api/1.0/search/byterm", ServiceShapes.podcastIndexFeeds(feeds: [("Sourdough Weekly", "http://www.feeds.example.com/sourdough.xml/"),
                                                                                             ("Rye Radio", "https://feeds.example.com/rye.xml")]))
        try server.write("rumble/search/channel", ServiceShapes.rumbleChannelSearch)
        let library = try TestLibrary()
        try await library.library.addChannel(platform: .podcast, sourceURL: "https://feeds.example.com/crumb.xml",
                                             feedURL: "https://feeds.example.com/crumb.xml", name: "Crumb & Co", now: 1000)
        try await library.library.addChannel(platform: .rumble, sourceURL: "https://rumble.com/c/BreadTV",
                                             feedURL: "https://rumble.com/c/BreadTV/videos", name: "BreadTV", now: 1000)
        let providers: [any DiscoveryProvider] = [
            ITunesProvider(baseURL: server.url("/itunes"), fetcher: fetcher),
            PodcastIndexProvider(auth: PodcastIndexAuth(key: "k", secret: "s"), baseURL: server.url("/pi"), fetcher: fetcher),
            RumbleProvider(baseURL: server.url("/rumble"), fetcher: fetcher),
        ]
        let answer = await FederatedSearch(providers: providers, channels: library.library)
            .search(DiscoveryRequest(query: "bread", kind: .channels))
        XCTAssertEqual(answer.results.map(\.title), ["Sourdough Weekly", "BreadTV", "Crumb & Co", "Rye Radio", "ryeguy"],
                       "one of each provider in turn; Podcast Index's copy of Sourdough Weekly is dropped")
        XCTAssertEqual(answer.results.map(\.subscribed), [false, true, true, false, false])
        XCTAssertEqual(answer.outcomes[2].results.first?.subscribed, true, "each provider's own list is marked too")
    }

    func testTheLibraryProviderFindsItemsWithTheirIDs() async throws {
        let library = try TestLibrary()
        let channel = try await library.library.addTestChannel("Bread Show")
        _ = try await library.library.ingest(Feed(kind: .podcast, title: "Bread Show", items: [item("a", published: 10, title: "Sourdough starter"),
                                                                                          item("b", published: 20, title: "Pizza")]),
                                     channelID: channel, now: 1000)
        let answer = await FederatedSearch(providers: [LibraryProvider(store: library.library)], channels: library.library)
            .search(DiscoveryRequest(query: "sourdough"))
        XCTAssertEqual(answer.results.map(\.title), ["Sourdough starter"])
        let id = try await library.library.id(of: "a")
        XCTAssertEqual(answer.results.first?.libraryItemID, id)
        XCTAssertEqual(answer.results.first?.playTarget, String(id))
        XCTAssertEqual(answer.results.first?.subscribed, true)
    }
}
