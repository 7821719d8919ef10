/// Finds the channel behind a YouTube page (`/@handle`, `/c/NAME`, `/user/NAME`, a video).
public enum YouTubePage {
    /// The page's channel id (`UC` + 22 of `[A-Za-z0-9_-]`), from, in order of trust: the
    /// canonical link when it is a `/channel/` URL, the RSS alternate link, a `channelId`
    /// `<meta>`, then `"externalId"` and `"channelId"` in the page's embedded data. Nil when
    /// none holds a valid id.
    public static func channelID(fromHTML bytes: [UInt8]) -> String? {
        let links = YouTubePageLinks()
        try? HTMLSAXParser.parse(bytes, into: links)
        return channelID(links: links, bytes: bytes)
    }

    /// The channel id from a page's scanned tags, else from its embedded data.
    static func channelID(links: YouTubePageLinks, bytes: [UInt8]) -> String? {
        let fromTags: [String?] = [
            links.canonical.flatMap { id(after: "/channel/", in: $0) },
            links.rssAlternate.flatMap { id(after: "channel_id=", in: $0) },
            links.metaChannelID,
        ]
        if let id = fromTags.lazy.compactMap({ $0 }).first { return id }
        // Page data is JSON inside scripts; ids may be escaped as in `"externalId":"UC…"`.
        for key in ["\"externalId\":\"", "\"channelId\":\""] {
            if let id = firstID(after: Array(key.utf8), in: bytes) { return id }
        }
        return nil
    }

    /// The valid channel id right after `marker` in `text`, if any.
    static func id(after marker: String, in text: String) -> String? {
        firstID(after: Array(marker.utf8), in: Array(text.utf8))
    }

    /// The first occurrence of `marker` followed by a valid id that is not followed by more id
    /// characters (so a 25-character token is not cut down to a valid-looking 24).
    static func firstID(after marker: [UInt8], in bytes: [UInt8]) -> String? {
        guard let first = marker.first, bytes.count >= marker.count + 24 else { return nil }
        var i = 0
        while i + marker.count + 24 <= bytes.count {
            if bytes[i] == first, bytes[i..<(i + marker.count)].elementsEqual(marker) {
                let start = i + marker.count
                let candidate = bytes[start..<(start + 24)]
                let next = start + 24 < bytes.count ? bytes[start + 24] : 0
                if candidate.starts(with: [UInt8(ascii: "U"), UInt8(ascii: "C")]),
                   candidate.allSatisfy(YouTubeFeeds.isIDByte), !YouTubeFeeds.isIDByte(next) {
                    return String(decoding: candidate, as: UTF8.self)
                }
                i = start
            } else {
                i += 1
            }
        }
        return nil
    }
}

/// The `<link>` and `<meta>` tags of a YouTube page that name its channel.
final class YouTubePageLinks: HTMLSAXHandler {
    private(set) var canonical: String?
    private(set) var rssAlternate: String?
    private(set) var metaChannelID: String?

    func startElement(_ name: HTMLName, _ attributes: HTMLAttributes) {
        if name == "link" {
            let rel = attributes["rel"]?.lowercased()
            if rel == "canonical", canonical == nil {
                canonical = attributes["href"]
            } else if rel == "alternate", rssAlternate == nil,
                      attributes["type"]?.lowercased() == "application/rss+xml" {
                rssAlternate = attributes["href"]
            }
        } else if name == "meta", metaChannelID == nil,
                  attributes["itemprop"] == "channelId" || attributes["itemprop"] == "identifier",
                  let content = attributes["content"], YouTubeFeeds.isChannelID(content) {
            // On a video page `identifier` is the video's id: only a channel id counts.
            metaChannelID = content
        }
    }

    func endElement(_ name: HTMLName) {}
    func characters(_ bytes: UnsafeBufferPointer<UInt8>) {}
}
