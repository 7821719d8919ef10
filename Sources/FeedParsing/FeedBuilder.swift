import FeedModel
import FeedText

/// Receives the element stream of one XML document, picks the format mapper from the root
/// element, collects raw items and hands each finished item, normalized, to `onItem`.
final class FeedBuilder {
    enum Format: Equatable {
        case undetermined, rss, rdf, atom, html
        /// A well-formed document that is not a feed; the payload is its root element's name.
        case other(String)
    }

    private(set) var format = Format.undetermined
    // Touched only from the parser's callbacks on one thread, never through overlapping inout
    // accesses: no runtime exclusivity checks for the per-element state (see XMLStreamParser).
    @exclusivity(unchecked) var channel = RawChannel()
    @exclusivity(unchecked) var item: RawItem?
    /// `item != nil`, without copying the item (and retaining its 35 strings) to compare it.
    private(set) var inItem = false
    var sawITunes = false
    var sawYouTube = false
    private(set) var itemCount = 0
    private(set) var hasMediaEnclosure = false
    @exclusivity(unchecked) private var itemDepth = -1
    @exclusivity(unchecked) private var containers: [Container] = []
    @exclusivity(unchecked) private var pending: Field?
    /// The attributes of a pending `.person` / `.funding` / `.channelFunding` element.
    var pendingPerson: Person?
    var pendingURL: String?
    /// What the parse recovered from, in document order (`Feed.warnings`); the XML core adds
    /// libxml2's errors here too.
    var warnings = ParseWarnings()
    /// Items identified by nothing but their title and date (no guid, link or enclosure).
    private var itemsWithoutID = 0
    private let onItem: (Item) -> Void
    /// Called when the root says this is no feed: nothing after it matters.
    var stop: () -> Void = {}

    init(onItem: @escaping (Item) -> Void) {
        self.onItem = onItem
    }

    /// A start tag from `XMLStreamParser`; returns true to receive the element's text in `end`.
    /// Elements inside a capturing element are its content: they are not reported, only their
    /// text is.
    func start(_ e: XMLElement) -> Bool {
        if e.depth == 0 {
            decideFormat(e)
            // A bare `<channel>` root (RSS 0.9x without its `<rss>`) is the channel itself.
            containers.append(e.name == "channel" ? .channel : .other)
            return false
        }
        let parent = containers.last ?? .other
        var container = Container.other
        let field: Field?
        switch e.namespace {
        case .itunes, .podcast, .content, .dc, .dcterms, .media, .yt, .googleplay:
            field = ExtensionMapper.start(e, parent: parent, self, container: &container)
        default:
            switch format {
            case .rss, .rdf: field = RSSMapper.start(e, parent: parent, self, container: &container)
            case .atom: field = AtomMapper.start(e, parent: parent, self, container: &container)
            default: field = nil
            }
        }
        containers.append(container)
        let captures = field != nil
        pending = field   // moved, not copied: `field` is not used after this
        return captures
    }

    /// An end tag at `depth`, with the text of the element if `start` asked for it. Which
    /// element ends needs no name: `containers` and `pending` follow the nesting.
    func end(depth: Int, text: UnsafeBufferPointer<UInt8>?) {
        if !containers.isEmpty { containers.removeLast() }
        if let text, let field = pending.take() {
            apply(field, text)
        }
        if depth == itemDepth { finishItem() }
    }

    func beginItem(_ e: XMLElement) {
        if inItem { finishItem() }   // an unclosed item in recovered XML
        item = RawItem(base: e.base, isAtom: format == .atom)
        inItem = true
        itemDepth = e.depth
    }

    /// The end of the document. An item left open by a truncated document is dropped, not
    /// stored half-filled (its enclosure or notes may be cut); the warnings say so.
    func finishDocument() {
        if inItem, let raw = item.take() {
            inItem = false
            let title = (raw.title ?? raw.dcTitle).flatMap(TextCleaner.collapse).map { " (\"\($0)\")" } ?? ""
            // Truncated, or libxml2 could read no further (its error is the warning before this).
            warnings.add("the document ends inside an item, which was dropped\(title)")
        }
        if itemsWithoutID > 0 {
            let n = itemsWithoutID
            warnings.add("\(n) item\(n == 1 ? " has" : "s have") no guid, link or enclosure: identified by title and date, so a changed title makes a new item")
        }
    }

    private func finishItem() {
        guard let raw = item.take() else { return }
        inItem = false
        itemDepth = -1
        if raw.videoID != nil { sawYouTube = true }
        let normalized = ItemNormalizer.item(from: raw, shortsFeed: isShortsFeed)
        if normalized.guid == nil, normalized.id.hasPrefix(ItemIdentity.hashPrefix) { itemsWithoutID += 1 }
        if !hasMediaEnclosure, let type = normalized.enclosure?.type, type.hasPrefix("audio/") || type.hasPrefix("video/") {
            hasMediaEnclosure = true
        }
        itemCount += 1
        onItem(normalized)
    }

    var isShortsFeed: Bool {
        channel.playlistID?.hasPrefix("UUSH") == true || channel.selfURL?.containsBytes("playlist_id=UUSH") == true
    }

    private func decideFormat(_ e: XMLElement) {
        channel.base = e.base
        // By the root's name, whatever its namespace (`XMLStreamParser.adoptRootNamespaces`).
        switch e.name {
        case "rss", "channel": format = .rss
        case "RDF": format = .rdf
        case "feed":
            format = .atom
            channel.language = e.attributes.value("lang", in: .xml)
        case "html": format = .html; stop()
        default: format = .other(e.name.string); stop()
        }
    }

    /// Stores an element's text. Numbers and dates are read from the bytes as they are; the
    /// rest becomes a String (invalid UTF-8 repaired).
    private func apply(_ field: Field, _ bytes: UnsafeBufferPointer<UInt8>) {
        if item?.apply(field, bytes: bytes) == true { return }
        let text = String(decoding: bytes, as: UTF8.self)
        switch field {
        case .ytChannelID: if channel.entryChannelID == nil { channel.entryChannelID = text }
        case .person:
            guard var person = pendingPerson.take(), let name = TextCleaner.collapse(text) else { return }
            person.name = name
            item?.persons.append(person)
        case .funding:
            guard let url = pendingURL.take() else { return }
            item?.funding.append(Link(url: url, title: TextCleaner.collapse(text)))
        case .channelFunding:
            guard let url = pendingURL.take() else { return }
            channel.funding.append(Link(url: url, title: TextCleaner.collapse(text)))
        case .channelTitle, .channelDCTitle, .channelLink, .channelDescription, .channelItunesSummary,
             .channelItunesSubtitle, .channelDCDescription, .channelGoogleplayDescription, .channelAuthor,
             .channelItunesAuthor, .channelDCCreator, .channelWebMaster, .channelOwnerName, .channelGoogleplayAuthor,
             .channelImage, .channelLanguage, .channelYTChannelID, .channelPlaylistID:
            channel.apply(field, text)
        default: item?.apply(field, text)
        }
    }
}
