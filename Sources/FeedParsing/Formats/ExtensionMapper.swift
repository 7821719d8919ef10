import FeedModel

/// Namespaced extensions shared by RSS and Atom: iTunes, Podcasting 2.0, `content:`, Dublin
/// Core, Media RSS and YouTube's `yt:`.
enum ExtensionMapper {
    static func start(_ e: XMLElement, parent: Container, _ b: FeedBuilder, container: inout Container) -> Field? {
        let inItem = b.inItem
        let a = e.attributes
        switch e.namespace {
        case .itunes:
            b.sawITunes = true
            return iTunes(e, parent: parent, b, container: &container)
        case .googleplay:
            // Google Play's podcast tags: the channel's last fallbacks for author, description, image.
            guard !inItem else { break }
            let n = e.name
            if n.caseless("author") { return .channelGoogleplayAuthor }
            if n.caseless("description") { return .channelGoogleplayDescription }
            if n.caseless("image"), let href = a["href"] ?? a["url"] { b.channel.googleplayImage = href }
        case .podcast:
            switch e.name {
            case "chapters" where inItem: if b.item?.chaptersURL == nil { b.item?.chaptersURL = a["url"] }
            case "transcript" where inItem: if b.item?.transcriptURL == nil { b.item?.transcriptURL = a["url"] }
            case "person" where inItem:
                b.pendingPerson = Person(name: "", role: a["role"], href: a["href"], image: a["img"])
                return .person
            case "funding":
                guard let url = a["url"] else { break }
                b.pendingURL = url
                return inItem ? .funding : .channelFunding
            case "episode" where inItem: return .podcastEpisode
            case "season" where inItem: return .podcastSeason
            case "liveItem" where !inItem:
                // A live stream announced in the feed: an item (RSS elements inside) with its status.
                container = .item
                b.beginItem(e)
                b.item?.liveStatus = a["status"]
            default: break
            }
        case .content:
            if inItem, e.name == "encoded", b.item?.wantsDescription == true { return .content }
        case .dc:
            switch e.name {
            case "creator": return inItem ? .dcCreator : .channelDCCreator
            case "date": return inItem ? .dcDate : nil
            case "title": return inItem ? .dcTitle : .channelDCTitle
            case "description":
                if !inItem { return .channelDCDescription }
                return b.item?.wantsDescription == true ? .dcDescription : nil
            case "language" where !inItem: return .channelLanguage
            default: break
            }
        case .dcterms:
            guard inItem else { break }
            switch e.name {
            case "issued": return .published
            case "created": return .created
            case "modified": return .updated
            default: break
            }
        case .media:
            switch e.name {
            case "group": container = .mediaGroup
            case "title" where inItem: return .mediaTitle
            case "description" where inItem: return .mediaDescription
            case "thumbnail":
                guard let url = a["url"] else { break }
                if inItem { if b.item?.thumbnail == nil { b.item?.thumbnail = url } }
                else if b.channel.image == nil { b.channel.image = url }
            case "content" where inItem:
                guard b.item?.mediaContent == nil, let url = a["url"] else { break }
                let type = a["type"], medium = a["medium"]
                if type?.hasPrefix("audio/") == true || type?.hasPrefix("video/") == true
                    || medium == "audio" || medium == "video" {
                    b.item?.mediaContent = (url, type, a["fileSize"])
                }
            case "statistics" where inItem: b.item?.views = a["views"]
            default: break
            }
        case .yt:
            b.sawYouTube = true
            switch e.name {
            case "videoId" where inItem: return .videoID
            case "channelId": return inItem ? .ytChannelID : .channelYTChannelID
            case "playlistId" where !inItem: return .channelPlaylistID
            default: break
            }
        default: break
        }
        return nil
    }

    /// The iTunes namespace, whose element names publishers capitalize freely (`itunes:Duration`,
    /// `itunes:episodetype`): matched without regard to case.
    private static func iTunes(_ e: XMLElement, parent: Container, _ b: FeedBuilder, container: inout Container) -> Field? {
        let inItem = b.inItem
        let n = e.name
        if inItem {
            if n.caseless("duration") { return .duration }
            if n.caseless("episode") { return .episode }
            if n.caseless("season") { return .season }
            if n.caseless("episodeType") { return .episodeType }
            if n.caseless("explicit") { return .explicit }
            if n.caseless("author") { return .itunesAuthor }
            // Fallback descriptions only matter while the item has none: long notes are not read twice.
            if n.caseless("summary") { return b.item?.description == nil ? .summary : nil }
            if n.caseless("subtitle") { return b.item?.wantsDescription == true ? .itunesSubtitle : nil }
            if n.caseless("image"), let href = e.attributes["href"] ?? e.attributes["url"] { b.item?.itunesImage = href }
            return nil
        }
        if n.caseless("author") { return .channelItunesAuthor }
        if n.caseless("summary") { return .channelItunesSummary }
        if n.caseless("subtitle") { return .channelItunesSubtitle }
        if n.caseless("owner") { container = .owner; return nil }
        if n.caseless("name") { return parent == .owner ? .channelOwnerName : nil }
        // `url` instead of `href` is wrong but common.
        if n.caseless("image"), let href = e.attributes["href"] ?? e.attributes["url"] { b.channel.itunesImage = href }
        return nil
    }
}
