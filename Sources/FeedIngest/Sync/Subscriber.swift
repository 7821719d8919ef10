/// `feedctl channel add`: turns what a person pastes (a podcast feed, any form of YouTube URL,
/// a Rumble channel) into a subscribed channel with its items, fetching once.
public final class Subscriber: Sendable {
    public let syncer: Syncer
    /// Where YouTube's pages and feeds live; tests point it at a local server.
    let youTubeOrigin: String

    public init(syncer: Syncer, youTubeOrigin: String = "https://www.youtube.com") {
        self.syncer = syncer
        self.youTubeOrigin = youTubeOrigin
    }

    public struct Added: Sendable, Equatable {
        public var channel: ChannelSummary
        public var newItems: Int
    }

    /// Subscribes to `url`. With `includeShorts`, a YouTube channel's Shorts playlist is subscribed
    /// too (as its own channel), so shorts are known as such.
    public func add(_ url: String, includeShorts: Bool = false, now: Int64 = Clock.now()) async throws(SyncError) -> [Added] {
        guard let target = SubscriptionURL.classify(url) else {
            throw SyncError(url: url, reason: "not an http(s) URL")
        }
        switch target {
        case .feed(let feedURL), .rumbleChannel(let feedURL):
            return try await subscribe(feedURL: feedURL, source: url, includeShorts: includeShorts, now: now)
        case .youtubeChannel(let id):
            return try await subscribeYouTube(channelID: id, source: url, includeShorts: includeShorts, now: now)
        case .youtubePlaylist(let id):
            return [try await subscribeOne(feedURL: youTube(YouTubeFeeds.playlistFeedURL(id)), source: url, now: now)]
        case .youtubePage(let pageURL):
            let page = try await fetch(youTube(pageURL))
            guard let id = YouTubePage.channelID(fromHTML: page.body) else {
                throw SyncError(url: url, reason: "no YouTube channel id found on the page")
            }
            return try await subscribeYouTube(channelID: id, source: url, includeShorts: includeShorts, now: now)
        }
    }

    /// A URL that turned out to be HTML gets a second chance: a YouTube page names its channel,
    /// a blog links its feed (`<link rel="alternate" type="application/rss+xml">`).
    private func subscribe(feedURL: String, source: String, includeShorts: Bool, now: Int64) async throws(SyncError) -> [Added] {
        let response = try await fetch(feedURL)
        do {
            return [try await store(response, feedURL: feedURL, source: source, now: now)]
        } catch let error where DocumentSniffer.sniff(response.body[...]) == .html {
            if let id = YouTubePage.channelID(fromHTML: response.body) {
                return try await subscribeYouTube(channelID: id, source: source, includeShorts: includeShorts, now: now)
            }
            if let alternate = FeedDiscovery.alternateFeedURL(inHTML: response.body, documentURL: response.finalURL),
               alternate != feedURL {
                return [try await subscribeOne(feedURL: alternate, source: source, now: now)]
            }
            throw error
        }
    }

    private func subscribeYouTube(channelID: String, source: String, includeShorts: Bool, now: Int64) async throws(SyncError) -> [Added] {
        var added = [try await subscribeOne(feedURL: youTube(YouTubeFeeds.channelFeedURL(channelID)), source: source, now: now)]
        if includeShorts {
            let shorts = youTube(YouTubeFeeds.playlistFeedURL(YouTubeFeeds.shortsPlaylistID(forChannel: channelID)))
            if let response = try await fetchShorts(shorts) {
                added.append(try await store(response, feedURL: shorts, source: source, now: now))
            }
        }
        return added
    }

    private func subscribeOne(feedURL: String, source: String, now: Int64) async throws(SyncError) -> Added {
        try await store(try await fetch(feedURL), feedURL: feedURL, source: source, now: now)
    }

    /// Parses a fetched feed and stores the channel and its items.
    private func store(_ response: FetchResponse, feedURL: String, source: String, now: Int64) async throws(SyncError) -> Added {
        let feed = try Syncer.parse(response)
        let stored = response.permanentRedirect ? response.finalURL : feedURL
        let library = syncer.library
        do {
            let channel = try library.addChannel(platform: Platform(feed.kind), sourceURL: source, feedURL: stored,
                                                 name: feed.title.isEmpty ? stored : feed.title, image: feed.image, now: now)
            let ingest = try library.ingest(feed, channelID: channel.id, now: now)
            try library.recordSyncSuccess(channelID: channel.id, now: now, etag: response.etag, lastModified: response.lastModified,
                                          bodyHash: BodyHash.of(response.body), pollInterval: syncer.pollInterval)
            return Added(channel: try library.channelSummary(id: channel.id), newItems: ingest.new)
        } catch {
            throw SyncError(url: feedURL, reason: error.description)
        }
    }

    private func fetch(_ url: String) async throws(SyncError) -> FetchResponse {
        do {
            return try await syncer.fetcher.fetch(syncer.limits.request(url))
        } catch {
            throw SyncError(error)
        }
    }

    /// A channel that never posted a Short has no Shorts playlist: YouTube answers 404, and
    /// that is nil rather than an error.
    private func fetchShorts(_ url: String) async throws(SyncError) -> FetchResponse? {
        do {
            return try await syncer.fetcher.fetch(syncer.limits.request(url))
        } catch where error.kind == .http(status: 404) {
            return nil
        } catch {
            throw SyncError(error)
        }
    }

    private func youTube(_ url: String) -> String {
        let origin = "https://www.youtube.com"
        guard youTubeOrigin != origin, url.hasPrefix(origin) else { return url }
        return youTubeOrigin + url.dropFirst(origin.count)
    }
}

extension Platform {
    /// The library's platform for a parsed feed: YouTube and Rumble by source; everything else is a podcast/feed.
    init(_ kind: Feed.Kind) {
        switch kind {
        case .youtube: self = .youtube
        case .rumble: self = .rumble
        case .podcast, .atom, .rss: self = .podcast
        }
    }
}

/// Feed autodiscovery on an HTML page.
enum FeedDiscovery {
    static func alternateFeedURL(inHTML bytes: [UInt8], documentURL: String) -> String? {
        let links = AlternateLinks()
        try? HTMLSAXParser.parse(bytes, into: links)
        return links.href.map { URLs.resolve($0, against: documentURL) }
    }

    final class AlternateLinks: HTMLSAXHandler {
        private(set) var href: String?
        func startElement(_ name: HTMLName, _ attributes: HTMLAttributes) {
            guard href == nil, name == "link", attributes["rel"]?.lowercased() == "alternate",
                  let type = attributes["type"]?.lowercased(),
                  type == "application/rss+xml" || type == "application/atom+xml" else { return }
            href = attributes["href"]
        }
        func endElement(_ name: HTMLName) {}
        func characters(_ bytes: UnsafeBufferPointer<UInt8>) {}
    }
}
