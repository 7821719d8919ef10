import FeedModel
import FeedText

/// What a document turned out to be (`FeedParser.read`).
public enum DocumentContent: Sendable, Equatable {
    /// A feed: RSS, Atom, or a Rumble channel listing page.
    case feed(Feed)
    /// A YouTube page naming its channel (`UC…`): subscribe the channel's feed.
    case youTubeChannel(String)
    /// An HTML page linking a feed (`<link rel="alternate" type="application/rss+xml">`),
    /// resolved against the document's URL.
    case feedLink(String)

    /// One HTML pass feeding the three readers at once.
    static func readPage(_ bytes: [UInt8], options: ParseOptions) throws(FeedError) -> DocumentContent {
        let page = PageReaders()
        try HTMLSAXParser.parse(bytes, into: page, timeBudget: options.timeBudget)
        if page.rumble.sawListing {
            return .feed(RumbleParser.feed(from: page.rumble, documentURL: options.documentURL))
        }
        if let id = YouTubePage.channelID(links: page.youTube, bytes: bytes) { return .youTubeChannel(id) }
        if let href = page.alternate.href {
            return .feedLink(options.documentURL.map { URLs.resolve(href, against: $0) } ?? href)
        }
        throw .notAFeed("an HTML page without a feed")
    }
}

/// The page readers of `DocumentContent.readPage`, fed by one SAX pass.
private final class PageReaders: HTMLSAXHandler {
    let rumble = RumbleListingScanner()
    let youTube = YouTubePageLinks()
    let alternate = FeedDiscovery.AlternateLinks()

    func startElement(_ name: HTMLName, _ attributes: HTMLAttributes) {
        rumble.startElement(name, attributes)
        youTube.startElement(name, attributes)
        alternate.startElement(name, attributes)
    }

    func endElement(_ name: HTMLName) {
        rumble.endElement(name)
    }

    func characters(_ bytes: UnsafeBufferPointer<UInt8>) {
        rumble.characters(bytes)
    }
}
