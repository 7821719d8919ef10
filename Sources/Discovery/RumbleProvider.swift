import FeedModel
import FeedParsing
import HTTPFetch

/// Rumble's search pages (`/search/video?q=`, `/search/channel?q=`), read by libxml2's HTML
/// parser as the channel pages are (`RumbleSearchPage` in FeedParsing).
public struct RumbleProvider: DiscoveryProvider {
    public let name = "rumble"
    public let platform: Platform? = .rumble
    public let limits: ProviderLimits
    /// `https://rumble.com`; tests point it at their own server.
    public let baseURL: String
    let fetch: ProviderFetch

    public init(baseURL: String = "https://rumble.com", limits: ProviderLimits = ProviderLimits(), fetcher: Fetcher) {
        self.baseURL = baseURL; self.limits = limits; fetch = ProviderFetch(fetcher: fetcher)
    }

    public func search(_ request: DiscoveryRequest) async throws(DiscoveryError) -> [DiscoveryResult] {
        let path = request.kind == .videos ? "/search/video" : "/search/channel"
        let url = URLQuery.build(baseURL, path, [("q", request.query)])
        let page = try await fetch.get(url, limits: limits)
        do {
            switch request.kind {
            case .videos:
                return try RumbleSearchPage.videos(page).prefix(request.limit).map { video in
                    let item = video.item
                    return DiscoveryResult(kind: .video, platform: .rumble, provider: name, id: item.id, title: item.title,
                                           url: item.url ?? "", channelName: item.author, channelURL: video.channelURL,
                                           channelID: video.channelURL.flatMap(Self.channelID), description: item.description,
                                           thumbnail: item.thumbnail, duration: item.duration, views: item.views, published: item.published)
                }
            case .channels:
                return try RumbleSearchPage.channels(page).prefix(request.limit).map { channel in
                    DiscoveryResult(kind: .channel, platform: .rumble, provider: name, id: channel.id, title: channel.name,
                                    url: channel.url, channelName: channel.name, channelURL: channel.url, channelID: channel.id,
                                    description: channel.subscribers, thumbnail: channel.image)
                }
            }
        } catch {
            throw DiscoveryError("\(URLQuery.withoutQuery(url)): \(error)")
        }
    }

    /// `https://rumble.com/c/NAME` → `c/NAME`.
    static func channelID(_ url: String) -> String? {
        guard let range = url.range(of: "rumble.com/") else { return nil }
        let id = url[range.upperBound...]
        return id.isEmpty ? nil : String(id)
    }
}
