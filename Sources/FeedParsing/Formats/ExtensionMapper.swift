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
            switch e.name {
            case "duration" where inItem: return .duration
            case "episode" where inItem: return .episode
            case "season" where inItem: return .season
            case "episodeType" where inItem: return .episodeType
            case "explicit" where inItem: return .explicit
            case "author": return inItem ? .itunesAuthor : .channelItunesAuthor
            // Descriptions only matter when the item has none yet: skip capturing long notes.
            case "summary": return inItem ? (b.item?.description == nil ? .summary : nil) : .channelItunesSummary
            case "image":
                guard let href = a["href"] else { break }
                if inItem { if b.item?.itunesImage == nil { b.item?.itunesImage = href } }
                else if b.channel.itunesImage == nil { b.channel.itunesImage = href }
            default: break
            }
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
            default: break
            }
        case .content:
            if inItem, e.name == "encoded", b.item?.description == nil, b.item?.summary == nil { return .content }
        case .dc:
            switch e.name {
            case "creator": return inItem ? .dcCreator : .channelAuthor
            case "date" where inItem: return .published
            case "language" where !inItem: return .channelLanguage
            default: break
            }
        case .dcterms:
            if inItem, e.name == "modified" { return .updated }
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
}
