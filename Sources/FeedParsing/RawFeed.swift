import FeedModel
import FeedText

/// What the format mappers collect, as the document spells it. `ItemNormalizer` turns it into
/// the model once the item is complete (URLs, identity, dates, durations, text cleanup, and the
/// fallbacks between elements that say the same thing).
///
/// Where an element repeats, feedparser's rule: a title and an item's description (`description`,
/// `summary`, `content`, and their fallbacks) keep their first occurrence, every other element
/// its last. Elements feedparser keeps as lists (enclosures, media thumbnails and content, links,
/// chapters, transcripts) keep their first as the one stored; persons and funding keep all.
struct RawItem {
    var base: String?
    var isAtom = false
    var guid: String?
    var guidIsPermaLink = true
    /// RSS 1.0: the item's `rdf:about`, its id when it has no `guid`.
    var rdfAbout: String?
    var title: String?
    var titleIsHTML = false
    var dcTitle: String?
    var mediaTitle: String?
    var link: String?
    /// The link is a non-HTML alternate, replaced by an HTML one if it comes.
    var linkIsFallback = false
    /// `pubDate`, Atom `published`/`issued`, `dcterms:issued`.
    var published = LastValue<Int64>()
    var dcDate = LastValue<Int64>()
    var created = LastValue<Int64>()
    /// Atom `updated`/`modified`, `dcterms:modified`.
    var updated = LastValue<Int64>()
    var duration = LastValue<Int>()
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
    var dcDescription: String?
    var itunesSubtitle: String?
    var mediaDescription: String?
    var views: String?
    var videoID: String?
    var episode = LastValue<Int>()
    var season = LastValue<Int>()
    var podcastEpisode = LastValue<Int>()
    var podcastSeason = LastValue<Int>()
    var episodeType: String?
    var explicit: String?
    var chaptersURL: String?
    var transcriptURL: String?
    var persons: [Person] = []
    var funding: [Link] = []
    /// `podcast:liveItem`'s `status`.
    var liveStatus: String?

    /// No description of any kind yet: the fallbacks (`itunes:summary`, `dc:description`,
    /// `itunes:subtitle`) are captured only then, so long notes are not read twice.
    var wantsDescription: Bool { description == nil && summary == nil && content == nil }
}

/// The channel's fields, under the same repeat rule as `RawItem`.
struct RawChannel {
    var base: String?
    var title: String?
    var dcTitle: String?
    var link: String?
    var description: String?
    var itunesSummary: String?
    var itunesSubtitle: String?
    var dcDescription: String?
    var googleplayDescription: String?
    /// RSS `managingEditor`, Atom `author/name`.
    var author: String?
    var itunesAuthor: String?
    var dcCreator: String?
    var webMaster: String?
    /// `itunes:owner/itunes:name`.
    var ownerName: String?
    var googleplayAuthor: String?
    /// RSS `image/url`, Atom `logo`/`icon`, `media:thumbnail`.
    var image: String?
    var itunesImage: String?
    var googleplayImage: String?
    var language: String?
    var selfURL: String?
    /// `atom:link rel="next"` (RFC 5005 paged feeds).
    var nextPage: String?
    var ytChannelID: String?
    /// Entry-level `yt:channelId` (carries the `UC` prefix the feed-level one may lack).
    var entryChannelID: String?
    var playlistID: String?
    var funding: [Link] = []
}

/// Which captured text goes where.
enum Field {
    case title, dcTitle, link, guid, published, dcDate, created, updated, duration, author, itunesAuthor, dcCreator
    case description, summary, content, dcDescription, itunesSubtitle, mediaTitle, mediaDescription
    case episode, season, podcastEpisode, podcastSeason, episodeType, explicit, videoID, ytChannelID
    /// Their attributes wait in `FeedBuilder.pendingPerson` / `pendingURL`: payload-free, a
    /// Field is copied and dropped without reference counting (once per element).
    case person, funding
    case channelTitle, channelDCTitle, channelLink, channelDescription, channelItunesSummary, channelItunesSubtitle
    case channelDCDescription, channelGoogleplayDescription
    case channelAuthor, channelItunesAuthor, channelDCCreator, channelWebMaster, channelOwnerName, channelGoogleplayAuthor
    case channelImage, channelLanguage, channelYTChannelID, channelPlaylistID, channelFunding
}

/// Element containers whose children mean different things (`image/title` is not the title).
enum Container: UInt8 {
    case other, channel, item, image, author, mediaGroup, textInput, owner
}

extension RawItem {
    /// Stores captured text under the repeat rule (see `RawItem`).
    mutating func apply(_ field: Field, _ text: String) {
        func first(_ value: inout String?) { if value == nil { value = text } }
        switch field {
        case .title: first(&title)
        case .dcTitle: first(&dcTitle)
        case .description: first(&description)
        case .summary: first(&summary)
        case .content: first(&content)
        case .dcDescription: first(&dcDescription)
        case .link: link = text
        case .guid: guid = text
        case .author: author = text
        case .itunesAuthor: itunesAuthor = text
        case .dcCreator: dcCreator = text
        case .itunesSubtitle: itunesSubtitle = text
        case .mediaTitle: mediaTitle = text
        case .mediaDescription: mediaDescription = text
        case .episodeType: episodeType = text
        case .explicit: explicit = text
        case .videoID: videoID = text
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
        case .dcDate: dcDate.read { DateParser.parse(bytes: bytes) }
        case .created: created.read { DateParser.parse(bytes: bytes) }
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

/// A number or date read from the last occurrence of its element (the repeat rule): a later
/// one replaces an earlier one even when it does not parse, as feedparser's does.
struct LastValue<Value> {
    private(set) var seen = false
    private(set) var value: Value?

    mutating func read(_ parse: () -> Value?) {
        seen = true
        value = parse()
    }
}

extension RawChannel {
    /// Stores captured text under the repeat rule: the title keeps its first occurrence, every
    /// other channel element its last (feedparser's rule at the channel level).
    mutating func apply(_ field: Field, _ text: String) {
        switch field {
        case .channelTitle: if title == nil { title = text }
        case .channelDCTitle: if dcTitle == nil { dcTitle = text }
        case .channelLink: link = text
        case .channelDescription: description = text
        case .channelItunesSummary: itunesSummary = text
        case .channelItunesSubtitle: itunesSubtitle = text
        case .channelDCDescription: dcDescription = text
        case .channelGoogleplayDescription: googleplayDescription = text
        case .channelAuthor: author = text
        case .channelItunesAuthor: itunesAuthor = text
        case .channelDCCreator: dcCreator = text
        case .channelWebMaster: webMaster = text
        case .channelOwnerName: ownerName = text
        case .channelGoogleplayAuthor: googleplayAuthor = text
        case .channelImage: image = text
        case .channelLanguage: language = text
        case .channelYTChannelID: ytChannelID = text
        case .channelPlaylistID: playlistID = text
        default: break
        }
    }
}
