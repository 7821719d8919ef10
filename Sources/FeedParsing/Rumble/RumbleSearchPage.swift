import FeedModel
import FeedText

/// Rumble's search pages, `https://rumble.com/search/video?q=` and `/search/channel?q=`,
/// through libxml2's HTML parser as the channel pages are: videos in any layout a channel page
/// uses (`RumbleListingScanner`: the JSON grid, the `videostream` cards) or the search page's
/// own `article.video-item` entries; channels from the `.channel-item` entries.
public enum RumbleSearchPage {
    /// A video the page lists, with the channel it came from (what subscribing takes).
    public struct Video: Sendable, Equatable {
        public var item: Item
        public var channelURL: String?
    }

    /// A channel the page lists.
    public struct Channel: Sendable, Equatable {
        /// `c/NAME` or `user/NAME`.
        public var id: String
        public var name: String
        public var url: String
        public var image: String?
        /// As the page shows it (`12.3K subscribers`): Rumble rounds it.
        public var subscribers: String?
    }

    public static func videos(_ bytes: [UInt8], timeBudget: Double = ParseLimits.timeBudget) throws(FeedError) -> [Video] {
        let listing = RumbleListingScanner()
        try HTMLSAXParser.parse(bytes, into: listing, timeBudget: timeBudget)
        var videos: [Video] = []
        for entry in listing.entries {
            switch entry {
            case .card(let card):
                if let item = RumbleParser.item(card) { videos.append(Video(item: item, channelURL: channelURL(card.channelHref))) }
            case .grid(let json):
                for video in (RumbleGridJSON.decode(json)?.items ?? []).compactMap(\.value) {
                    if let item = RumbleParser.item(video) { videos.append(Video(item: item, channelURL: channelURL(video.by?.url))) }
                }
            }
        }
        if videos.isEmpty {
            let search = RumbleSearchScanner()
            try HTMLSAXParser.parse(bytes, into: search, timeBudget: timeBudget)
            videos = search.cards.compactMap { card in
                RumbleParser.item(card).map { Video(item: $0, channelURL: channelURL(card.channelHref)) }
            }
        }
        var seen = Set<String>()
        return videos.filter { seen.insert($0.item.id).inserted }
    }

    public static func channels(_ bytes: [UInt8], timeBudget: Double = ParseLimits.timeBudget) throws(FeedError) -> [Channel] {
        let search = RumbleSearchScanner()
        try HTMLSAXParser.parse(bytes, into: search, timeBudget: timeBudget)
        var seen = Set<String>()
        return search.channels.compactMap { entry -> Channel? in
            guard let url = channelURL(entry.href), let path = RumbleParser.channelPath(url) else { return nil }
            let id = path.kind + "/" + path.name
            guard seen.insert(id.lowercased()).inserted else { return nil }
            let name = entry.title.flatMap(TextCleaner.collapse).flatMap(ItemNormalizer.line) ?? path.name
            return Channel(id: id, name: name, url: url, image: entry.image.map { URLs.resolve($0, against: RumbleParser.site) },
                           subscribers: entry.subscribers.flatMap(TextCleaner.collapse))
        }
    }

    /// A channel link as the page gives it → `https://rumble.com/c/NAME` (nil unless a channel).
    private static func channelURL(_ href: String?) -> String? {
        guard let href else { return nil }
        let absolute = URLs.resolve(href, against: RumbleParser.site)
        guard let path = RumbleParser.channelPath(absolute) else { return nil }
        return RumbleParser.site + path.kind + "/" + path.name
    }
}
