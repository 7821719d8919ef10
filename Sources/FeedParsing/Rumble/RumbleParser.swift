import FeedModel
import FeedText

/// Rumble channel listing pages (`https://rumble.com/c/NAME/videos`, `/user/NAME`, `?page=N`)
/// → `Feed`. Reads both layouts: the current one (a JSON list in `<rum-videos-grid>`) and the
/// older server-rendered cards. The featured card repeats a listed video and is skipped.
public enum RumbleParser {
    static let site = "https://rumble.com/"

    /// Parses a Rumble channel listing page. `documentURL` (where the page came from) is the base
    /// of the paginator's next link. Throws `.notAFeed` for HTML that is not a listing.
    public static func parse(_ bytes: [UInt8], documentURL: String?, timeBudget: Double = ParseLimits.timeBudget) throws(FeedError) -> Feed {
        let page = RumbleListingScanner()
        try HTMLSAXParser.parse(bytes, into: page, timeBudget: timeBudget)
        guard page.sawListing else { throw .notAFeed("an HTML page without a feed") }
        return feed(from: page, documentURL: documentURL)
    }

    /// The feed of a scanned listing page (`page.sawListing`).
    static func feed(from page: RumbleListingScanner, documentURL: String?) -> Feed {

        var items: [Item] = []
        var itemChannelURL: String?         // for pages without a canonical link
        for entry in page.entries {
            switch entry {
            case .card(let card):
                guard let item = item(card) else { continue }
                items.append(item)
                itemChannelURL = itemChannelURL ?? card.channelHref.map { URLs.resolve($0, against: site) }
            case .grid(let json):
                let videos = (RumbleGridJSON.decode(json)?.items ?? []).compactMap(\.value)
                items += videos.compactMap(item)
                itemChannelURL = itemChannelURL ?? videos.lazy.compactMap { $0.by?.url }.first
            }
        }
        var seen = Set<String>()
        items = items.filter { seen.insert($0.id).inserted }.map(capped)

        let canonical = page.canonical.map { URLs.resolve($0, against: site) }
        let channel = (canonical.flatMap(channelPath) ?? documentURL.flatMap(channelPath)) ?? itemChannelURL.flatMap(channelPath)
        let pageBase = documentURL.flatMap { URLs.isHTTP($0) ? $0 : nil } ?? canonical ?? site
        let title = [page.headerTitle, page.ogTitle, page.documentTitle.map(dropSiteSuffix), items.first?.author, channel?.name]
            .lazy.compactMap { $0.flatMap(TextCleaner.collapse) }.first ?? ""
        return Feed(kind: .rumble, title: ItemNormalizer.line(title) ?? "",
                    link: canonical ?? channel.map { site + $0.kind + "/" + $0.name },
                    description: ItemNormalizer.text(page.metaDescription.flatMap(TextCleaner.collapse)),
                    image: (page.headerImage ?? page.ogImage).map { URLs.resolve($0, against: site) },
                    channelID: channel?.name,
                    nextPage: page.nextHref.map { URLs.resolve($0, against: pageBase) },
                    items: items)
    }

    // MARK: Items

    static func item(_ card: RumbleListingScanner.Card) -> Item? {
        guard let url = card.href.map(videoURL), !url.isEmpty else { return nil }
        let liveStatus = card.liveStatus
        var item = Item(id: ItemIdentity.rumbleID(fromURL: url) ?? url, url: url)
        item.title = [card.title, card.titleAttribute].lazy.compactMap { $0.flatMap(TextCleaner.collapse) }.first ?? ""
        item.thumbnail = card.thumbnail.map { URLs.resolve($0, against: site) }
        item.published = card.datetime.flatMap(DateParser.parse)
        item.duration = liveStatus == nil ? card.durationText.flatMap(DurationParser.parse).flatMap(positive) : nil
        // A card without a count (an upcoming stream, a page that hides it) is unknown, not 0.
        item.views = card.views.flatMap { Int64($0.trimmingWhitespace()) }
        item.author = [card.author, card.authorAttribute].lazy.compactMap { $0.flatMap(TextCleaner.collapse) }.first
        item.liveStatus = liveStatus
        return item
    }

    static func item(_ video: RumbleGridJSON.Video) -> Item? {
        guard video.objectType == nil || video.objectType == "video",
              let url = video.url.map(videoURL), !url.isEmpty else { return nil }
        let liveStatus: String? = switch (video.live, video.livestreamStatus?.int64) {
        case (true, _), (_, 2): "live"
        case (_, 3): "upcoming"
        default: nil
        }
        var item = Item(id: ItemIdentity.rumbleID(fromURL: url) ?? url, url: url)
        item.title = video.title.flatMap(TextCleaner.collapse) ?? ""
        item.thumbnail = video.thumb.map { URLs.resolve($0, against: site) }
        item.published = video.uploadDate.flatMap(DateParser.parse)
        item.duration = liveStatus == nil ? video.duration?.int64.flatMap { Int(exactly: $0) }.flatMap(positive) : nil
        item.views = video.views?.int64
        item.isShort = video.isShort ?? false
        item.author = video.by?.name.flatMap(TextCleaner.collapse)
        item.liveStatus = liveStatus
        return item
    }

    /// A video page's absolute URL without its tracking query (`?e9s=…`) or fragment. Video
    /// pages always live on rumble.com, whatever served the listing.
    static func videoURL(_ href: String) -> String {
        let absolute = URLs.resolve(href, against: site)
        return String(absolute.prefix { $0 != "?" && $0 != "#" })
    }

    private static func positive(_ seconds: Int) -> Int? { seconds > 0 ? seconds : nil }

    /// The field caps of `FieldLimits`, as for every feed (`ItemNormalizer`).
    private static func capped(_ item: Item) -> Item {
        var item = item
        item.title = ItemNormalizer.line(item.title) ?? ""
        item.author = ItemNormalizer.line(item.author)
        item.url = ItemNormalizer.keep(item.url)
        item.thumbnail = ItemNormalizer.keep(item.thumbnail)
        return item
    }

    // MARK: Channel

    /// `https://rumble.com/c/NAME[/videos]` or `/user/NAME` → ("c", "NAME").
    static func channelPath(_ url: String) -> (kind: String, name: String)? {
        guard URLs.isHTTP(url), let afterScheme = url.range(of: "://") else { return nil }
        let rest = url[afterScheme.upperBound...].prefix { $0 != "?" && $0 != "#" }
        let parts = rest.split(separator: "/").dropFirst()    // drop the host
        guard parts.count >= 2, let kind = parts.first, kind == "c" || kind == "user",
              let name = parts.dropFirst().first, !name.isEmpty else { return nil }
        return (String(kind), String(name))
    }

    /// `<title>NAME - Rumble</title>` → `NAME`.
    private static func dropSiteSuffix(_ title: String) -> String {
        let t = title.trimmingWhitespace()
        return t.hasSuffix(" - Rumble") ? String(t.dropLast(9)) : t
    }
}
