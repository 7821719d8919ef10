import FeedModel
import LibraryStore

/// The library's full-text search (`SearchRule`): items of channels the user follows, best
/// match first, each with its library id (it plays and saves at once); for channel searches,
/// the followed channels whose names hold every word.
public struct LibraryProvider: DiscoveryProvider {
    public let name = "library"
    public let platform: Platform? = nil
    public let limits: ProviderLimits
    let store: any SearchStore & ChannelStore

    public init(store: any SearchStore & ChannelStore, limits: ProviderLimits = ProviderLimits()) {
        self.store = store; self.limits = limits
    }

    public func search(_ request: DiscoveryRequest) async throws(DiscoveryError) -> [DiscoveryResult] {
        do {
            switch request.kind {
            case .videos:
                let items = try await store.search(SearchQuery(text: request.query, page: .first(request.limit)))
                return items.map { item in
                    DiscoveryResult(kind: .video, platform: item.platform, provider: name, id: item.itemID, title: item.title,
                                    url: item.url ?? item.enclosureURL ?? "", channelName: item.channel,
                                    channelID: String(item.channelID), thumbnail: item.thumbnail, duration: item.duration,
                                    published: item.published, audioURL: item.enclosureURL, libraryItemID: item.id, subscribed: true)
                }
            case .channels:
                let words = request.query.lowercased().split(whereSeparator: { $0 == " " || $0 == "\t" })
                return try await store.allChannels()
                    .filter { channel in words.allSatisfy { channel.name.lowercased().contains($0) } }
                    .prefix(request.limit)
                    .map { channel in
                        DiscoveryResult(kind: .channel, platform: channel.platform, provider: name, id: String(channel.id),
                                        title: channel.name, url: channel.sourceURL, feedURL: channel.feedURL,
                                        channelName: channel.name, channelURL: channel.sourceURL, thumbnail: channel.image,
                                        subscribed: true)
                    }
            }
        } catch {
            throw DiscoveryError(error.description)
        }
    }
}
