/// Collects, in one SAX pass, what a Rumble search page lists in the layouts the channel-page
/// scanner does not know: the search pages' own video entries (`article.video-item`, with
/// `video-item--…` parts) and channel entries (`.channel-item`, with `channel-item--…` parts, as
/// `/search/channel?q=` lists them). Values are kept raw; `RumbleSearchPage` makes results.
final class RumbleSearchScanner: HTMLSAXHandler {
    struct ChannelEntry {
        var href: String?
        var image: String?
        var title: String?
        var subscribers: String?
    }

    private(set) var cards: [RumbleListingScanner.Card] = []
    private(set) var channels: [ChannelEntry] = []

    private enum Field { case title, duration, author, channelTitle, subscribers }
    private var depth = 0
    private var card: RumbleListingScanner.Card?
    private var cardDepth = 0
    private var addressDepth: Int?
    private var channel: ChannelEntry?
    private var channelDepth = 0
    private var capture: (field: Field, depth: Int)?
    private var buffer: [UInt8] = []

    func startElement(_ name: HTMLName, _ attributes: HTMLAttributes) {
        depth += 1
        if card != nil { return cardElement(name, attributes) }
        if channel != nil { return channelElement(name, attributes) }
        if name == "article", attributes.hasClass("video-item") {
            card = RumbleListingScanner.Card()
            cardDepth = depth
        } else if attributes.hasClass("channel-item") {
            channel = ChannelEntry()
            channelDepth = depth
        }
    }

    private func cardElement(_ name: HTMLName, _ attributes: HTMLAttributes) {
        if name == "address", attributes.hasClass("video-item--by") {
            addressDepth = depth
        } else if name == "a", addressDepth != nil {
            if card?.channelHref == nil { card?.channelHref = attributes["href"]; startCapture(.author) }
        } else if name == "a", card?.href == nil, let href = attributes["href"], href.contains("/v") {
            card?.href = href
        } else if name == "img", card?.thumbnail == nil {
            card?.thumbnail = attributes["src"] ?? attributes["data-src"]
        } else if attributes.hasClass("video-item--title") {
            startCapture(.title)
        } else if attributes.hasClass("video-item--duration") {
            if let value = attributes["data-value"] { card?.durationText = value } else { startCapture(.duration) }
        } else if attributes.hasClass("video-item--views"), card?.views == nil {
            card?.views = attributes["data-value"].map { String($0.filter(\.isNumber)) }
        } else if name == "time", card?.datetime == nil {
            card?.datetime = attributes["datetime"]
        }
    }

    private func channelElement(_ name: HTMLName, _ attributes: HTMLAttributes) {
        if name == "a", channel?.href == nil, let href = attributes["href"], href.contains("/c/") || href.contains("/user/") {
            channel?.href = href
        } else if name == "img", channel?.image == nil {
            channel?.image = attributes["src"] ?? attributes["data-src"]
        } else if attributes.hasClass("channel-item--title") || (name == "h3" && channel?.title == nil) {
            startCapture(.channelTitle)
        } else if attributes.hasClass("channel-item--subscribers") {
            startCapture(.subscribers)
        }
    }

    func endElement(_ name: HTMLName) {
        defer { depth -= 1 }
        if let c = capture, c.depth == depth { finishCapture(c.field) }
        if addressDepth == depth { addressDepth = nil }
        if let c = card, cardDepth == depth { cards.append(c); card = nil }
        if let c = channel, channelDepth == depth { channels.append(c); channel = nil }
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
        let text = String(decoding: buffer, as: UTF8.self)
        switch field {
        case .title: card?.title = text
        case .duration: card?.durationText = text
        case .author: card?.author = text
        case .channelTitle: if channel?.title == nil { channel?.title = text }
        case .subscribers: channel?.subscribers = text
        }
    }
}
