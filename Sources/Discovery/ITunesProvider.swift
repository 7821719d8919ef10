import FeedModel
import FeedText
import HTTPFetch

/// Apple's iTunes Search API (no key): podcasts (`/search?term=&media=podcast&entity=podcast`)
/// for channel searches, episodes (`entity=podcastEpisode`) for video searches. Each podcast
/// carries its RSS feed (`feedUrl`), which is what subscribing takes.
public struct ITunesProvider: DiscoveryProvider {
    public let name = "itunes"
    public let platform: Platform? = .podcast
    public let limits: ProviderLimits
    /// `https://itunes.apple.com`; tests point it at their own server.
    public let baseURL: String
    let fetch: ProviderFetch

    public init(baseURL: String = "https://itunes.apple.com", limits: ProviderLimits = ProviderLimits(), fetcher: Fetcher) {
        self.baseURL = baseURL; self.limits = limits; fetch = ProviderFetch(fetcher: fetcher)
    }

    public func search(_ request: DiscoveryRequest) async throws(DiscoveryError) -> [DiscoveryResult] {
        let entity = request.kind == .channels ? "podcast" : "podcastEpisode"
        let url = URLQuery.build(baseURL, "/search", [("term", request.query), ("media", "podcast"), ("entity", entity),
                                                        ("limit", String(request.limit))])
        let answer = try await fetch.json(ITunesAnswer.self, url, limits: limits)
        return answer.results.prefix(request.limit).compactMap { $0.result(provider: name) }
    }
}

/// The iTunes Search API's answer: `{"resultCount": N, "results": [...]}`, one object per
/// podcast (`wrapperType` "track", `kind` "podcast") or episode (`kind` "podcast-episode").
struct ITunesAnswer: Decodable {
    var results: [Entry]

    struct Entry: Decodable {
        var kind: String?
        var collectionId: Int64?
        var trackId: Int64?
        var collectionName: String?
        var trackName: String?
        var artistName: String?
        var feedUrl: String?
        var collectionViewUrl: String?
        var trackViewUrl: String?
        var artworkUrl600: String?
        var artworkUrl100: String?
        var releaseDate: String?
        var trackTimeMillis: Int64?
        var episodeUrl: String?
        var description: String?
        var shortDescription: String?
        var primaryGenreName: String?

        func result(provider: String) -> DiscoveryResult? {
            if kind == "podcast-episode" {
                guard let trackId, let title = trackName, let media = episodeUrl.flatMap(URLQuery.http) else { return nil }
                return DiscoveryResult(kind: .video, platform: .podcast, provider: provider, id: String(trackId), title: title,
                                       url: trackViewUrl ?? media, feedURL: feedUrl.flatMap(URLQuery.http),
                                       channelName: collectionName, channelURL: collectionViewUrl, channelID: collectionId.map(String.init),
                                       description: shortDescription ?? description, thumbnail: artworkUrl600 ?? artworkUrl100,
                                       duration: trackTimeMillis.map { Int($0 / 1000) },
                                       published: releaseDate.flatMap(DateParser.parse), audioURL: media)
            }
            // A podcast without a feed cannot be subscribed to (Apple lists some): left out.
            guard let id = collectionId ?? trackId, let title = collectionName ?? trackName,
                  let feed = feedUrl.flatMap(URLQuery.http) else { return nil }
            return DiscoveryResult(kind: .channel, platform: .podcast, provider: provider, id: String(id), title: title,
                                   url: collectionViewUrl ?? feed, feedURL: feed, channelName: artistName,
                                   description: primaryGenreName, thumbnail: artworkUrl600 ?? artworkUrl100,
                                   published: releaseDate.flatMap(DateParser.parse))
        }
    }
}
