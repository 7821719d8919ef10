/// Collects, in one SAX pass, what a Rumble channel listing page says: the channel (canonical
/// link, header title and image, Open Graph fallbacks), the video cards of the older layout, the
/// JSON of the current `<rum-videos-grid>` layout, and the paginator's next link. Values are kept
/// raw here; `RumbleParser` turns them into the model.
final class RumbleListingScanner: HTMLSAXHandler {
    /// One server-rendered `div.videostream.thumbnail__grid--item`.
    struct Card {
        var href: String?
        var thumbnail: String?
        var durationText: String?
        var liveStatus: String?
        var title: String?
        var titleAttribute: String?
        var views: String?
        var datetime: String?
        var author: String?
        var authorAttribute: String?
        var channelHref: String?
    }

    /// The listing in document order: cards and JSON grids, as a page may mix them.
    enum Entry {
        case card(Card)
        case grid([UInt8])
    }

    private(set) var entries: [Entry] = []
    private(set) var sawListing = false
    private(set) var canonical: String?
    private(set) var ogTitle: String?
    private(set) var ogImage: String?
    private(set) var metaDescription: String?
    private(set) var documentTitle: String?
    private(set) var headerTitle: String?
    private(set) var headerImage: String?
    private(set) var nextHref: String?

    private enum Field { case documentTitle, headerTitle, cardTitle, cardDuration, cardAuthor, gridJSON }

    private var depth = 0
    private var card: Card?
    private var cardDepth = 0
    /// Inside a featured card: it repeats a listed video, so all of it is ignored.
    private var skipDepth: Int?
    private var headerTitleDepth: Int?
    private var gridDepth: Int?
    private var nextItemDepth: Int?
    private var capture: (field: Field, depth: Int)?
    private var buffer: [UInt8] = []

    func startElement(_ name: HTMLName, _ attributes: HTMLAttributes) {
        depth += 1
        if skipDepth != nil { return }
        if card != nil { cardElement(name, attributes); return }

        if name == "div", attributes.hasClass("videostream"), attributes.hasClass("thumbnail__grid--item") {
            sawListing = true
            if attributes.hasClass("videostream--featured") { skipDepth = depth; return }
            card = Card()
            cardDepth = depth
        } else if name == "rum-videos-grid" {
            sawListing = true
            gridDepth = depth
        } else if name == "script", gridDepth != nil, attributes["type"].map({ $0.contains("json") }) ?? true {
            startCapture(.gridJSON)
        } else if name == "section", attributes.hasClass("channel-listing__container") {
            sawListing = true
        } else if name == "li", attributes.hasClass("paginator--li--next") {
            nextItemDepth = depth
        } else if name == "a", nextItemDepth != nil, nextHref == nil {
            nextHref = attributes["href"]
        } else if name == "div", attributes.hasClass("channel-header--title") {
            headerTitleDepth = depth
        } else if name == "h1", headerTitleDepth != nil, headerTitle == nil {
            startCapture(.headerTitle)
        } else if name == "img", attributes.hasClass("channel-header--img"), headerImage == nil {
            headerImage = attributes["src"]
        } else if name == "link", attributes["rel"]?.lowercased() == "canonical", canonical == nil {
            canonical = attributes["href"]
        } else if name == "meta" {
            headMeta(attributes)
        } else if name == "title", documentTitle == nil {
            startCapture(.documentTitle)
        }
    }

    private func cardElement(_ name: HTMLName, _ attributes: HTMLAttributes) {
        if attributes.hasClass("videostream__status--duration") {
            startCapture(.cardDuration)
        } else if attributes.hasClass("videostream__status--live") {
            card?.liveStatus = "live"
        } else if attributes.hasClass("videostream__status--upcoming") {
            card?.liveStatus = "upcoming"
        } else if name == "a" {
            if attributes.hasClass("videostream__link"), card?.href == nil {
                card?.href = attributes["href"]
            } else if attributes.hasClass("title__link"), card?.href == nil {
                card?.href = attributes["href"]
            } else if attributes.hasClass("channel__link") || attributes["rel"] == "author", card?.channelHref == nil {
                card?.channelHref = attributes["href"]
            }
        } else if name == "img", attributes.hasClass("thumbnail__image"), card?.thumbnail == nil {
            card?.thumbnail = attributes["src"]
        } else if name == "h3", attributes.hasClass("thumbnail__title") {
            card?.titleAttribute = attributes["title"]
            startCapture(.cardTitle)
        } else if attributes.hasClass("videostream__views"), card?.views == nil {
            card?.views = attributes["data-views"]
        } else if name == "time", card?.datetime == nil {
            card?.datetime = attributes["datetime"]
        } else if attributes.hasClass("channel__name"), card?.author == nil {
            card?.authorAttribute = attributes["title"]
            startCapture(.cardAuthor)
        }
    }

    private func headMeta(_ attributes: HTMLAttributes) {
        guard let content = attributes["content"] else { return }
        switch attributes["property"] ?? attributes["name"] {
        case "og:title": ogTitle = ogTitle ?? content
        case "og:image": ogImage = ogImage ?? content
        case "description": metaDescription = metaDescription ?? content
        default: break
        }
    }

    func endElement(_ name: HTMLName) {
        defer { depth -= 1 }
        if let c = capture, c.depth == depth { finishCapture(c.field) }
        if let s = skipDepth {
            if s == depth { skipDepth = nil }
            return
        }
        if let c = card, cardDepth == depth { entries.append(.card(c)); card = nil }
        if gridDepth == depth { gridDepth = nil }
        if nextItemDepth == depth { nextItemDepth = nil }
        if headerTitleDepth == depth { headerTitleDepth = nil }
    }

    func characters(_ bytes: UnsafeBufferPointer<UInt8>) {
        if capture != nil { buffer.append(contentsOf: bytes) }
    }

    private func startCapture(_ field: Field) {
        guard capture == nil else { return }
        capture = (field, depth)
        buffer.removeAll(keepingCapacity: true)
    }

    private func finishCapture(_ field: Field) {
        capture = nil
        if field == .gridJSON { entries.append(.grid(buffer)); return }
        let text = String(decoding: buffer, as: UTF8.self)
        switch field {
        case .documentTitle: documentTitle = text
        case .headerTitle: headerTitle = text
        case .cardTitle: card?.title = text
        case .cardDuration: card?.durationText = text
        case .cardAuthor: card?.author = text
        case .gridJSON: break
        }
    }
}
