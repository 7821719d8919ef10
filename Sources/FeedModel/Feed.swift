/// The normalized model every source (RSS, Atom, YouTube, Rumble) is parsed into.
/// Field meanings are the `feedctl parse --json` contract documented in docs/cli.md.
public struct Feed: Sendable, Equatable {
    public enum Kind: String, Sendable, Codable, CaseIterable {
        case podcast, youtube, rumble, atom, rss
    }

    public var kind: Kind
    public var title: String
    /// The site's web page (RSS `link`, Atom `link rel=alternate`).
    public var link: String?
    public var description: String?
    public var author: String?
    public var image: String?
    public var language: String?
    /// The feed's own URL as it declares it (`atom:link rel=self`), if any.
    public var selfURL: String?
    /// YouTube: the channel id with its `UC` prefix. Rumble: the channel's path name.
    public var channelID: String?
    /// The next page of the feed: Rumble's paginator, or `atom:link rel="next"` (paged feeds,
    /// RFC 5005), absolute.
    public var nextPage: String?
    /// Podcasting 2.0 `podcast:funding` at channel level.
    public var funding: [Link]
    public var items: [Item]
    /// What the parser had to recover from, one line each (an undeclared prefix, a mismatched or
    /// unclosed tag, a truncated document, an encoding fallback, items without an id), at most
    /// `FeedWarnings.maxKept` plus a closing "and N more". Empty for a clean document.
    public var warnings: [String]

    public init(kind: Kind, title: String = "", link: String? = nil, description: String? = nil,
                author: String? = nil, image: String? = nil, language: String? = nil,
                selfURL: String? = nil, channelID: String? = nil, nextPage: String? = nil,
                funding: [Link] = [], items: [Item] = [], warnings: [String] = []) {
        self.kind = kind; self.title = title; self.link = link; self.description = description
        self.author = author; self.image = image; self.language = language; self.selfURL = selfURL
        self.channelID = channelID; self.nextPage = nextPage; self.funding = funding; self.items = items
        self.warnings = warnings
    }
}

public struct Item: Sendable, Equatable {
    /// Stable identity: YouTube video id, Rumble `v…` token, else guid, enclosure URL, link,
    /// else a hash of title + date (see `ItemIdentity`).
    public var id: String
    public var guid: String?
    public var title: String
    /// The item's web page, distinct from the enclosure.
    public var url: String?
    /// Unix seconds, UTC.
    public var published: Int64?
    public var updated: Int64?
    /// Seconds.
    public var duration: Int?
    public var enclosure: Enclosure?
    public var thumbnail: String?
    public var author: String?
    /// Plain text: HTML stripped, entities decoded, whitespace collapsed.
    public var description: String?
    /// The show notes' markup as the feed wrote it, cut to `FieldLimits.maxNotesHTMLBytes`; nil
    /// when it holds no tag (then `description` says it all). UNSANITIZED: never shown as is;
    /// what shows it (one item at a time) runs `NotesSanitizer` on it when it is read.
    public var notesMarkup: String?
    public var views: Int64?
    public var isShort: Bool
    public var episode: Int?
    public var season: Int?
    public var episodeType: String?
    public var explicit: Bool?
    public var chaptersURL: String?
    public var transcriptURL: String?
    /// Podcasting 2.0 `podcast:person`.
    public var persons: [Person]
    /// Podcasting 2.0 `podcast:funding` at item level.
    public var funding: [Link]
    /// A live stream's state: Rumble's `live` or `upcoming`, Podcasting 2.0 `podcast:liveItem`'s
    /// `pending`, `live` or `ended` (lowercased); nil for an ordinary item.
    public var liveStatus: String?

    public init(id: String = "", guid: String? = nil, title: String = "", url: String? = nil,
                published: Int64? = nil, updated: Int64? = nil, duration: Int? = nil,
                enclosure: Enclosure? = nil, thumbnail: String? = nil, author: String? = nil,
                description: String? = nil, views: Int64? = nil, isShort: Bool = false,
                episode: Int? = nil, season: Int? = nil, episodeType: String? = nil,
                explicit: Bool? = nil, chaptersURL: String? = nil, transcriptURL: String? = nil,
                persons: [Person] = [], funding: [Link] = [], liveStatus: String? = nil, notesMarkup: String? = nil) {
        self.id = id; self.guid = guid; self.title = title; self.url = url
        self.published = published; self.updated = updated; self.duration = duration
        self.enclosure = enclosure; self.thumbnail = thumbnail; self.author = author
        self.description = description; self.views = views; self.isShort = isShort
        self.episode = episode; self.season = season; self.episodeType = episodeType
        self.explicit = explicit; self.chaptersURL = chaptersURL; self.transcriptURL = transcriptURL
        self.persons = persons; self.funding = funding; self.liveStatus = liveStatus
        self.notesMarkup = notesMarkup
    }
}

public struct Enclosure: Sendable, Equatable {
    public var url: String
    public var type: String?
    /// Bytes; nil when missing, zero or garbage.
    public var length: Int64?
    public init(url: String, type: String? = nil, length: Int64? = nil) {
        self.url = url; self.type = type; self.length = length
    }
}

public struct Person: Sendable, Equatable {
    public var name: String
    public var role: String?
    public var href: String?
    public var image: String?
    public init(name: String, role: String? = nil, href: String? = nil, image: String? = nil) {
        self.name = name; self.role = role; self.href = href; self.image = image
    }
}

/// A titled link (Podcasting 2.0 funding).
public struct Link: Sendable, Equatable {
    public var url: String
    public var title: String?
    public init(url: String, title: String? = nil) { self.url = url; self.title = title }
}

// Person and Link as the JSON contracts write them (`persons`, `funding`) and the library
// stores them: every key present, null for what a feed left out.
extension Person: Codable {
    enum CodingKeys: String, CodingKey { case name, role, href, image }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encode(role, forKey: .role)
        try c.encode(href, forKey: .href)
        try c.encode(image, forKey: .image)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(name: try c.decode(String.self, forKey: .name), role: try c.decodeIfPresent(String.self, forKey: .role),
                  href: try c.decodeIfPresent(String.self, forKey: .href), image: try c.decodeIfPresent(String.self, forKey: .image))
    }
}

extension Link: Codable {
    enum CodingKeys: String, CodingKey { case url, title }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(url, forKey: .url)
        try c.encode(title, forKey: .title)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(url: try c.decode(String.self, forKey: .url), title: try c.decodeIfPresent(String.self, forKey: .title))
    }
}
