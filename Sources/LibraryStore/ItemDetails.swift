import FeedModel

/// What `show ID` prints beyond the item's row in a list: the show notes and the item's links.
public struct ItemDetails: Sendable, Equatable {
    public var item: LibraryItem
    /// The show notes as stored: plain text (the parser stripped the HTML).
    public var notes: String?
    public var author: String?
    public var enclosureType: String?
    /// The enclosure length the feed announced (a hint, not the file's size).
    public var enclosureLength: Int64?
    public var chaptersURL: String?
    public var transcriptURL: String?
    public var episode: Int?
    public var season: Int?
    /// `itunes:explicit`: true, false, or nil when the feed does not say.
    public var explicit: Bool?
    /// `itunes:episodeType` (`full`, `trailer`, `bonus`), lowercased.
    public var episodeType: String?
    /// A live stream's state (`Item.liveStatus`).
    public var liveStatus: String?
    /// Podcasting 2.0 `podcast:person` and `podcast:funding` of the item.
    public var persons: [Person]
    public var funding: [Link]
    /// The show notes as sanitized HTML (`Item.notesHTML`), nil when plain text says it all.
    public var notesHTML: String?

    public init(item: LibraryItem, notes: String?, author: String?, enclosureType: String?, enclosureLength: Int64?,
                chaptersURL: String?, transcriptURL: String?, episode: Int?, season: Int?, explicit: Bool? = nil,
                episodeType: String? = nil, liveStatus: String? = nil, persons: [Person] = [], funding: [Link] = [],
                notesHTML: String? = nil) {
        self.item = item; self.notes = notes; self.author = author; self.enclosureType = enclosureType
        self.enclosureLength = enclosureLength; self.chaptersURL = chaptersURL; self.transcriptURL = transcriptURL
        self.episode = episode; self.season = season; self.explicit = explicit; self.episodeType = episodeType
        self.liveStatus = liveStatus; self.persons = persons; self.funding = funding; self.notesHTML = notesHTML
    }
}
