import FeedModel
import HTTPFetch

/// Podcast Index (`/api/1.0/search/byterm?q=`), when a key and secret are configured: podcasts
/// by title, author and owner, each with its feed. It finds feeds, not episodes, so it answers
/// channel searches only. Every request is signed (`PodcastIndexAuth`).
public struct PodcastIndexProvider: DiscoveryProvider {
    public let name = "podcastindex"
    public let platform: Platform? = .podcast
    public let limits: ProviderLimits
    /// `https://api.podcastindex.org`; tests point it at their own server.
    public let baseURL: String
    let auth: PodcastIndexAuth
    let clock: @Sendable () -> Int64
    let fetch: ProviderFetch

    public init(auth: PodcastIndexAuth, baseURL: String = "https://api.podcastindex.org", limits: ProviderLimits = ProviderLimits(),
                fetcher: Fetcher, clock: @escaping @Sendable () -> Int64 = { Clock.now() }) {
        self.auth = auth; self.baseURL = baseURL; self.limits = limits; self.clock = clock; fetch = ProviderFetch(fetcher: fetcher)
    }

    public func answers(_ kind: DiscoveryRequest.Kind) -> Bool { kind == .channels }

    public func search(_ request: DiscoveryRequest) async throws(DiscoveryError) -> [DiscoveryResult] {
        let url = URLQuery.build(baseURL, "/api/1.0/search/byterm", [("q", request.query), ("max", String(request.limit))])
        let headers: [String: String]
        do { headers = try auth.headers(now: clock()) } catch { throw DiscoveryError("cannot sign the request: \(error)") }
        let answer = try await fetch.json(PodcastIndexAnswer.self, url, headers: headers, limits: limits)
        return answer.feeds.prefix(request.limit).compactMap { $0.result(provider: name) }
    }
}

/// Podcast Index's answer to `search/byterm`: `{"status": "true", "feeds": [...], "count": N}`.
struct PodcastIndexAnswer: Decodable {
    var feeds: [Feed]

    struct Feed: Decodable {
        var id: Int64?
        var title: String?
        var url: String?
        var link: String?
        var description: String?
        var author: String?
        var image: String?
        var artwork: String?
        var lastUpdateTime: Int64?

        func result(provider: String) -> DiscoveryResult? {
            guard let id, let title, let feed = url.flatMap(URLQuery.http) else { return nil }
            return DiscoveryResult(kind: .channel, platform: .podcast, provider: provider, id: String(id), title: title,
                                   url: link.flatMap(URLQuery.http) ?? feed, feedURL: feed, channelName: author,
                                   description: description, thumbnail: artwork ?? image, published: lastUpdateTime)
        }
    }
}
