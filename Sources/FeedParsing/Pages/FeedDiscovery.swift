import FeedText

/// Feed autodiscovery on an HTML page.
public enum FeedDiscovery {
    /// The first `<link rel="alternate">` to an RSS or Atom feed, resolved against the page's URL.
    public static func alternateFeedURL(inHTML bytes: [UInt8], documentURL: String) -> String? {
        let links = AlternateLinks()
        try? HTMLSAXParser.parse(bytes, into: links)
        return links.href.map { URLs.resolve($0, against: documentURL) }
    }

    final class AlternateLinks: HTMLSAXHandler {
        private(set) var href: String?
        func startElement(_ name: HTMLName, _ attributes: HTMLAttributes) {
            guard href == nil, name == "link", attributes["rel"]?.lowercased() == "alternate",
                  let type = attributes["type"]?.lowercased(),
                  type == "application/rss+xml" || type == "application/atom+xml" else { return }
            href = attributes["href"]
        }
        func endElement(_ name: HTMLName) {}
        func characters(_ bytes: UnsafeBufferPointer<UInt8>) {}
    }
}
