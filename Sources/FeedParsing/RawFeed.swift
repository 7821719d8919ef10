import FeedModel
import FeedText

/// What the format mappers collect, as the document spells it. `ItemNormalizer` turns it into
/// the model once the item is complete (URLs, identity, dates, durations, text cleanup).
struct RawItem {
    var base: String?
    var isAtom = false
    var guid: String?
    var guidIsPermaLink = true
    var title: String?
    var titleIsHTML = false
    var mediaTitle: String?
    var link: String?
    /// The link is a non-HTML alternate, replaced by an HTML one if it comes.
    var linkIsFallback = false
    var published = FirstValue<Int64>()
    var updated = FirstValue<Int64>()
    var duration = FirstValue<Int>()
    var enclosureURL: String?
    var enclosureType: String?
    var enclosureLength: String?
    /// First audio/video `media:content`, used when there is no enclosure.
    var mediaContent: (url: String, type: String?, length: String?)?
    var thumbnail: String?
    var itunesImage: String?
    var author: String?
    var itunesAuthor: String?
    var dcCreator: String?
    var description: String?
    var summary: String?
    var content: String?
    var mediaDescription: String?
    var views: String?
    var videoID: String?
    var episode = FirstValue<Int>()
    var season = FirstValue<Int>()
    var podcastEpisode = FirstValue<Int>()
    var podcastSeason = FirstValue<Int>()
    var episodeType: String?
    var explicit: String?
    var chaptersURL: String?
    var transcriptURL: String?
    var persons: [Person] = []
    var funding: [Link] = []
}

struct RawChannel {
    var base: String?
    var title: String?
    var link: String?
    var description: String?
    var itunesSummary: String?
    var author: String?
    var itunesAuthor: String?
    var image: String?
    var itunesImage: String?
    var language: String?
    var selfURL: String?
    var ytChannelID: String?
    /// Entry-level `yt:channelId` (carries the `UC` prefix the feed-level one may lack).
    var entryChannelID: String?
    var playlistID: String?
    var funding: [Link] = []
}

/// Which captured text goes where.
enum Field {
    case title, link, guid, published, updated, duration, author, itunesAuthor, dcCreator
    case description, summary, content, mediaTitle, mediaDescription
    case episode, season, podcastEpisode, podcastSeason, episodeType, explicit, videoID, ytChannelID
    /// Their attributes wait in `FeedBuilder.pendingPerson` / `pendingURL`: payload-free, a
    /// Field is copied and dropped without reference counting (once per element).
    case person, funding
    case channelTitle, channelLink, channelDescription, channelItunesSummary, channelAuthor, channelItunesAuthor
    case channelImage, channelLanguage, channelYTChannelID, channelPlaylistID, channelFunding
}

/// Element containers whose children mean different things (`image/title` is not the title).
enum Container: UInt8 {
    case other, channel, item, image, author, mediaGroup, textInput
}

extension RawItem {
    /// Stores captured text; the first occurrence wins (feeds repeat elements in odd places).
    mutating func apply(_ field: Field, _ text: String) {
        func first(_ value: inout String?) { if value == nil { value = text } }
        switch field {
        case .title: first(&title)
        case .link: first(&link)
        case .guid: first(&guid)
        case .author: first(&author)
        case .itunesAuthor: first(&itunesAuthor)
        case .dcCreator: first(&dcCreator)
        case .description: first(&description)
        case .summary: first(&summary)
        case .content: first(&content)
        case .mediaTitle: first(&mediaTitle)
        case .mediaDescription: first(&mediaDescription)
        case .episodeType: first(&episodeType)
        case .explicit: first(&explicit)
        case .videoID: first(&videoID)
        default: break
        }
    }
}

extension RawItem {
    /// Reads a number or date field straight from the element's bytes (no String on the way);
    /// false for the text fields.
    mutating func apply(_ field: Field, bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        switch field {
        case .published: published.read { DateParser.parse(bytes: bytes) }
        case .updated: updated.read { DateParser.parse(bytes: bytes) }
        case .duration: duration.read { DurationParser.parse(bytes: bytes) }
        case .episode: episode.read { DurationParser.integer(bytes: bytes) }
        case .season: season.read { DurationParser.integer(bytes: bytes) }
        case .podcastEpisode: podcastEpisode.read { DurationParser.integer(bytes: bytes) }
        case .podcastSeason: podcastSeason.read { DurationParser.integer(bytes: bytes) }
        default: return false
        }
        return true
    }
}

/// A number or date read from the first occurrence of its element: later ones are ignored
/// even when the first did not parse, as the first text wins for the text fields.
struct FirstValue<Value> {
    private(set) var seen = false
    private(set) var value: Value?

    mutating func read(_ parse: () -> Value?) {
        guard !seen else { return }
        seen = true
        value = parse()
    }
}

extension RawChannel {
    mutating func apply(_ field: Field, _ text: String) {
        func first(_ value: inout String?) { if value == nil { value = text } }
        switch field {
        case .channelTitle: first(&title)
        case .channelLink: first(&link)
        case .channelDescription: first(&description)
        case .channelItunesSummary: first(&itunesSummary)
        case .channelAuthor: first(&author)
        case .channelItunesAuthor: first(&itunesAuthor)
        case .channelImage: first(&image)
        case .channelLanguage: first(&language)
        case .channelYTChannelID: first(&ytChannelID)
        case .channelPlaylistID: first(&playlistID)
        default: break
        }
    }
}
