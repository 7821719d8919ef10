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
    /// The show notes' markup as stored (`Item.notesMarkup`: UNSANITIZED), nil when plain text
    /// says it all. Shown only through `NotesSanitizer`.
    public var storedNotes: StoredNotes?

    public init(item: LibraryItem, notes: String?, author: String?, enclosureType: String?, enclosureLength: Int64?,
                chaptersURL: String?, transcriptURL: String?, episode: Int?, season: Int?, explicit: Bool? = nil,
                episodeType: String? = nil, liveStatus: String? = nil, persons: [Person] = [], funding: [Link] = [],
                storedNotes: StoredNotes? = nil) {
        self.item = item; self.notes = notes; self.author = author; self.enclosureType = enclosureType
        self.enclosureLength = enclosureLength; self.chaptersURL = chaptersURL; self.transcriptURL = transcriptURL
        self.episode = episode; self.season = season; self.explicit = explicit; self.episodeType = episodeType
        self.liveStatus = liveStatus; self.persons = persons; self.funding = funding; self.storedNotes = storedNotes
    }
}

/// An item's show notes as the library keeps them: the feed's markup (`Item.notesMarkup`),
/// UNSANITIZED, and the URL its relative links resolve against (the item's page, else its feed's
/// URL). They leave the library only through `NotesSanitizer.sanitize(markup, base:)`, run when
/// they are shown (one item at a time), so a better sanitizer applies to old items too.
public struct StoredNotes: Sendable, Equatable {
    public var markup: String
    public var base: String?
    public init(markup: String, base: String?) { self.markup = markup; self.base = base }
}
