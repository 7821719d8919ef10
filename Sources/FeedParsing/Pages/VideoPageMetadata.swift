import FeedModel
import FeedText
import Foundation

/// What a video's web page says about it, for saving a page the library does not hold: Open
/// Graph (`og:title`, `og:image`, `og:video:duration`…), the page's JSON-LD `VideoObject`
/// (`name`, `thumbnailUrl`, `duration` in ISO 8601, `uploadDate`), its `<title>`, and the URL
/// of its oEmbed document (`<link rel="alternate" type="application/json+oembed">`), which the
/// caller may fetch when the page itself names no title or picture. Read with libxml2's HTML
/// parser; the page never touches the network.
public struct VideoPageMetadata: Sendable, Equatable {
    public var title: String?
    public var description: String?
    public var thumbnailURL: String?
    public var durationSeconds: Int?
    /// Unix seconds.
    public var uploadDate: Int64?
    public var channelName: String?
    public var channelURL: String?
    /// The page's own URL (`og:url`, `<link rel="canonical">`), resolved.
    public var canonicalURL: String?
    /// The page's oEmbed document, resolved.
    public var oEmbedURL: String?

    public init(title: String? = nil, description: String? = nil, thumbnailURL: String? = nil, durationSeconds: Int? = nil,
                uploadDate: Int64? = nil, channelName: String? = nil, channelURL: String? = nil, canonicalURL: String? = nil,
                oEmbedURL: String? = nil) {
        self.title = title; self.description = description; self.thumbnailURL = thumbnailURL
        self.durationSeconds = durationSeconds; self.uploadDate = uploadDate; self.channelName = channelName
        self.channelURL = channelURL; self.canonicalURL = canonicalURL; self.oEmbedURL = oEmbedURL
    }

    /// Reads an HTML page fetched from `documentURL` (relative links resolve against it).
    /// Open Graph wins over JSON-LD, which wins over `<title>`; a page that names nothing gives
    /// an empty value, not an error.
    public static func parse(html bytes: [UInt8], documentURL: String) -> VideoPageMetadata {
        let scanner = Scanner()
        try? HTMLSAXParser.parse(bytes, into: scanner)
        var page = VideoPageMetadata()
        let og = scanner.meta
        let ld = scanner.jsonLD.lazy.compactMap(Self.videoObject).first
        func clean(_ text: String?) -> String? {
            guard let text else { return nil }
            let collapsed = text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
            return collapsed.isEmpty ? nil : String(collapsed.prefix(SavedPageRule.maxFieldCharacters))
        }
        func resolve(_ link: String?) -> String? { clean(link).map { URLs.resolve($0, against: documentURL) } }
        page.title = clean(og["og:title"]) ?? clean(ld?["name"] as? String) ?? clean(og["twitter:title"]) ?? clean(scanner.title)
        page.description = clean(og["og:description"]) ?? clean(ld?["description"] as? String) ?? clean(og["description"])
        page.thumbnailURL = resolve(og["og:image:secure_url"] ?? og["og:image"] ?? Self.firstString(ld?["thumbnailUrl"])
                                    ?? og["twitter:image"])
        page.durationSeconds = (og["og:video:duration"] ?? og["video:duration"]).flatMap { DurationParser.parse($0) }
            ?? (ld?["duration"] as? String).flatMap { DurationParser.parse($0) }
        page.uploadDate = (og["video:release_date"] ?? og["article:published_time"] ?? ld?["uploadDate"] as? String)
            .flatMap { DateParser.parse($0) }
        let author = ld?["author"] as? [String: Any]
        page.channelName = clean(author?["name"] as? String) ?? clean(og["og:site_name"])
        page.channelURL = resolve(author?["url"] as? String)
        page.canonicalURL = resolve(og["og:url"] ?? scanner.canonical)
        page.oEmbedURL = resolve(scanner.oEmbed)
        return page
    }

    /// An oEmbed document's title, picture and author, filling what the page left out.
    public mutating func fill(fromOEmbed bytes: [UInt8]) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else { return }
        if title == nil, let text = object["title"] as? String, !text.isEmpty { title = text }
        if thumbnailURL == nil, let link = object["thumbnail_url"] as? String, !link.isEmpty { thumbnailURL = link }
        if channelName == nil, let name = object["author_name"] as? String, !name.isEmpty { channelName = name }
        if channelURL == nil, let link = object["author_url"] as? String, !link.isEmpty { channelURL = link }
        if durationSeconds == nil, let seconds = object["duration"] as? Int, seconds >= 0 { durationSeconds = seconds }
    }

    /// The first JSON-LD object that describes a video (`VideoObject`, also inside `@graph`).
    private static func videoObject(_ text: String) -> [String: Any]? {
        guard let json = try? JSONSerialization.jsonObject(with: Data(text.utf8)) else { return nil }
        var queue: [Any] = [json]
        var index = 0
        while index < queue.count && index < 256 {
            let node = queue[index]; index += 1
            if let list = node as? [Any] { queue.append(contentsOf: list); continue }
            guard let object = node as? [String: Any] else { continue }
            let types = (object["@type"] as? String).map { [$0] } ?? (object["@type"] as? [String]) ?? []
            if types.contains("VideoObject") { return object }
            if let graph = object["@graph"] { queue.append(graph) }
        }
        return nil
    }

    private static func firstString(_ value: Any?) -> String? {
        if let text = value as? String { return text }
        if let list = value as? [Any] { return list.lazy.compactMap { $0 as? String }.first }
        return nil
    }

    /// Collects `<meta property|name content>`, `<title>`, the canonical and oEmbed links and
    /// JSON-LD scripts, each first occurrence kept.
    final class Scanner: HTMLSAXHandler {
        var meta: [String: String] = [:]
        var title: String?
        var canonical: String?
        var oEmbed: String?
        var jsonLD: [String] = []
        private var inTitle = false
        private var titleBytes: [UInt8] = []
        private var inJSONLD = false
        private var scriptBytes: [UInt8] = []

        func startElement(_ name: HTMLName, _ attributes: HTMLAttributes) {
            if name == "meta" {
                guard let key = (attributes["property"] ?? attributes["name"] ?? attributes["itemprop"])?.lowercased(),
                      let content = attributes["content"], meta[key] == nil else { return }
                meta[key] = content
            } else if name == "link" {
                let rel = attributes["rel"]?.lowercased() ?? ""
                if rel == "canonical", canonical == nil { canonical = attributes["href"] }
                if rel == "alternate", attributes["type"]?.lowercased() == "application/json+oembed", oEmbed == nil {
                    oEmbed = attributes["href"]
                }
            } else if name == "title", title == nil {
                inTitle = true
            } else if name == "script", attributes["type"]?.lowercased() == "application/ld+json", jsonLD.count < 8 {
                inJSONLD = true
                scriptBytes = []
            }
        }

        func endElement(_ name: HTMLName) {
            if name == "title", inTitle {
                inTitle = false
                title = String(decoding: titleBytes, as: UTF8.self)
            } else if name == "script", inJSONLD {
                inJSONLD = false
                jsonLD.append(String(decoding: scriptBytes, as: UTF8.self))
            }
        }

        func characters(_ bytes: UnsafeBufferPointer<UInt8>) {
            // Bounded: a page's title or JSON-LD is small; a huge one is cut, not kept whole.
            if inTitle && titleBytes.count < 4096 { titleBytes.append(contentsOf: bytes) }
            if inJSONLD && scriptBytes.count < 1 << 20 { scriptBytes.append(contentsOf: bytes) }
        }
    }
}
