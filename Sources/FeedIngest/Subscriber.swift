import FeedModel
import FeedParsing
import HTTPFetch
import LibraryStore

/// `feedctl channel add`: turns what a person pastes (a podcast feed, any form of YouTube URL,
/// a Rumble channel) into a subscribed channel with its items, fetching once. The feed goes
/// through the `Syncer`'s pipeline; only finding it (resolving a YouTube page, following a blog's
/// feed link) is particular to subscribing.
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
        /// The feed was subscribed already: it was synced, and nothing about the channel changed.
        public var alreadySubscribed = false
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
            let page = try await syncer.fetchToSubscribe(youTube(pageURL))
            guard let id = YouTubePage.channelID(fromHTML: page.body) else {
                throw SyncError(url: url, reason: "no YouTube channel id found on the page")
            }
            return try await subscribeYouTube(channelID: id, source: url, includeShorts: includeShorts, now: now)
        }
    }

    /// A URL that turned out to be HTML gets a second chance: a YouTube page names its channel,
    /// a blog links its feed (`<link rel="alternate" type="application/rss+xml">`). The document
    /// is parsed once, whatever it turns out to be (it used to be parsed up to three times).
    private func subscribe(feedURL: String, source: String, includeShorts: Bool, now: Int64) async throws(SyncError) -> [Added] {
        if let again = try await resyncIfSubscribed(feedURL, now: now) { return [again] }
        let response = try await syncer.fetchToSubscribe(feedURL)
        switch try syncer.read(response) {
        case .feed(let feed):
            return [try await store(feed, from: response, feedURL: feedURL, source: source, now: now)]
        case .youTubeChannel(let id):
            return try await subscribeYouTube(channelID: id, source: source, includeShorts: includeShorts, now: now)
        case .feedLink(let link) where link != feedURL:
            return [try await subscribeOne(feedURL: link, source: source, now: now)]
        case .feedLink:
            throw SyncError(url: feedURL, reason: "not a feed: an HTML page whose feed link is itself")
        }
    }

    private func subscribeYouTube(channelID: String, source: String, includeShorts: Bool, now: Int64) async throws(SyncError) -> [Added] {
        var added = [try await subscribeOne(feedURL: youTube(YouTubeFeeds.channelFeedURL(channelID)), source: source, now: now)]
        if includeShorts {
            let shorts = youTube(YouTubeFeeds.playlistFeedURL(YouTubeFeeds.shortsPlaylistID(forChannel: channelID)))
            if let again = try await resyncIfSubscribed(shorts, now: now) {
                added.append(again)
            } else if let response = try await fetchShorts(shorts) {
                added.append(try await store(try syncer.parse(response), from: response, feedURL: shorts, source: source, now: now))
            }
        }
        return added
    }

    private func subscribeOne(feedURL: String, source: String, now: Int64) async throws(SyncError) -> Added {
        if let again = try await resyncIfSubscribed(feedURL, now: now) { return again }
        let response = try await syncer.fetchToSubscribe(feedURL)
        return try await store(try syncer.parse(response), from: response, feedURL: feedURL, source: source, now: now)
    }

    /// A feed the user follows already (pasted again) is synced as any channel is: claimed first,
    /// so it is not fetched while another sync polls it. Nil when it is not subscribed (a new
    /// feed has no row to claim until it is stored).
    private func resyncIfSubscribed(_ feedURL: String, now: Int64) async throws(SyncError) -> Added? {
        let store = syncer.store
        let existing: Channel?
        do throws(LibraryError) { existing = try await store.channel(feedURL: feedURL) } catch {
            throw SyncError(url: feedURL, error)
        }
        guard let existing else { return nil }
        let report = await syncer.sync([existing], now: now)
        guard let result = report.channels.first else { throw SyncError(url: feedURL, reason: "the sync was interrupted") }
        if result.status == .error, let message = result.error {
            // The poll's message leads with the URL already.
            throw SyncError(url: feedURL, reason: message.hasPrefix(feedURL + ": ") ? String(message.dropFirst(feedURL.count + 2)) : message)
        }
        do throws(LibraryError) {
            return Added(channel: try await store.channelSummary(id: existing.id), newItems: result.newItems, alreadySubscribed: true)
        } catch {
            throw SyncError(url: feedURL, error)
        }
    }

    /// Parses a fetched feed and stores the channel, its items and its bookkeeping in one
    /// transaction (the `Syncer`'s `Poll`). A feed already subscribed (pasted again, or reached
    /// again through another page that links it) is synced as that channel: its source URL,
    /// name and platform stay as they were.
    private func store(_ feed: Feed, from response: FetchResponse, feedURL: String, source: String, now: Int64) async throws(SyncError) -> Added {
        let stored = response.permanentRedirect ? response.finalURL : feedURL
        let store = syncer.store
        do throws(LibraryError) {
            let existing = try await store.channel(feedURL: stored)
            let subject: Poll.Subject = existing.map { .channel(id: $0.id) } ?? .subscription(NewChannel(
                platform: Platform(feed.kind), sourceURL: source, feedURL: stored,
                name: ChannelName.forNewChannel(feedTitle: feed.title, feedURL: stored), image: feed.image, reach: syncer.reach))
            let validators = Validators(etag: response.etag, lastModified: response.lastModified, bodyHash: BodyHash.of(response.body))
            let poll = Poll(subject: subject, outcome: .changed(validators, feed), pollInterval: syncer.pollInterval)
            let applied = try await store.apply([poll], now: now)[0].get()
            return Added(channel: try await store.channelSummary(id: applied.channelID), newItems: applied.ingest.new,
                         alreadySubscribed: existing != nil)
        } catch {
            throw SyncError(url: feedURL, error)
        }
    }

    /// A channel that never posted a Short has no Shorts playlist: YouTube answers 404, and
    /// that is nil rather than an error.
    private func fetchShorts(_ url: String) async throws(SyncError) -> FetchResponse? {
        let client = try await syncer.fetcherToSubscribe(url)
        do {
            return try await client.fetch(syncer.limits.request(url))
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
