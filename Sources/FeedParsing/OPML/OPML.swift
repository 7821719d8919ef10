import CLibXML2
import FeedModel
import FeedText
import Foundation

/// A subscription as OPML carries it.
public struct OPMLFeed: Sendable, Equatable {
    public var title: String
    public var xmlURL: String
    public var htmlURL: String?
    /// The platform feedctl exported it as (`feedctl:platform`); nil from other programs.
    public var platform: Platform?
    public init(title: String, xmlURL: String, htmlURL: String? = nil, platform: Platform? = nil) {
        self.title = title; self.xmlURL = xmlURL; self.htmlURL = htmlURL; self.platform = platform
    }
}

/// OPML 2.0 subscription lists, as newsboat, gPodder and most podcast apps exchange them.
public enum OPML {
    /// Larger than any real subscription list; a guard against being handed a video file.
    public static let maxBytes = 20_000_000

    /// Reads and parses the OPML file at `path`.
    public static func parse(contentsOf path: String) throws(OPMLError) -> [OPMLFeed] {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw .io(file: path, why: FileManager.default.fileExists(atPath: path) ? "permission denied" : "no such file")
        }
        defer { try? handle.close() }
        let data: Data
        do { data = try handle.read(upToCount: maxBytes + 1) ?? Data() } catch { throw .io(file: path, why: error.localizedDescription) }
        return try parse(Array(data), file: path)
    }

    /// Every outline with an `xmlUrl`, nested ones included (category outlines are flattened
    /// away), in document order, each feed URL once. `file` names the source in errors.
    /// libxml2 runs without network access and without substituting entities.
    public static func parse(_ bytes: [UInt8], file: String = "OPML") throws(OPMLError) -> [OPMLFeed] {
        guard !bytes.isEmpty else { throw .empty(file: file) }
        guard bytes.count <= maxBytes else { throw .tooLarge(file: file, limit: maxBytes) }
        let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_RECOVER.rawValue | XML_PARSE_NOERROR.rawValue
                            | XML_PARSE_NOWARNING.rawValue | XML_PARSE_NOCDATA.rawValue)
        let doc = bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress?.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                xmlReadMemory($0, Int32(buffer.count), nil, nil, options)
            }
        }
        guard let doc else {
            let why = xmlGetLastError().flatMap { $0.pointee.message.map { String(cString: $0) } }?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? "no XML document"
            throw urlList(bytes, file: file) ?? .malformed(file: file, why: why)
        }
        defer { xmlFreeDoc(doc) }
        guard let root = xmlDocGetRootElement(doc) else { throw urlList(bytes, file: file) ?? .notOPML(file: file, what: "no XML in it") }
        let rootName = name(of: root)
        guard rootName.lowercased() == "opml" else { throw .notOPML(file: file, what: "root element is <\(rootName)>") }

        var feeds: [OPMLFeed] = []
        var seen = Set<String>()
        // Depth-first in document order, with an explicit stack: nesting depth is the file's choice.
        var stack: [xmlNodePtr] = children(of: root).reversed()
        while let node = stack.popLast() {
            let tag = name(of: node).lowercased()
            guard tag == "body" || tag == "outline" else { continue }
            stack.append(contentsOf: children(of: node).reversed())
            guard tag == "outline" else { continue }
            let attributes = self.attributes(of: node)
            guard let raw = attributes["xmlurl"] ?? attributes["url"], !raw.isEmpty else { continue }
            let url = URLs.rewritePodcastScheme(raw)
            guard seen.insert(url).inserted else { continue }
            let title = [attributes["title"], attributes["text"]].compactMap { $0 }.first { !$0.isEmpty } ?? url
            feeds.append(OPMLFeed(title: title, xmlURL: url, htmlURL: attributes["htmlurl"].flatMap { $0.isEmpty ? nil : $0 },
                                  platform: (attributes[platformKey] ?? attributes["feedctl:platform"]).flatMap(Platform.init(rawValue:))))
        }
        return feeds
    }

    /// A file that is not XML but a list of feed URLs, one per line (newsboat's `urls` file, a
    /// hand-made list; `#` comments and what follows a URL on its line allowed), said as such.
    private static func urlList(_ bytes: [UInt8], file: String) -> OPMLError? {
        let lines = String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("#") }
        guard !lines.isEmpty, lines.allSatisfy({ line in
            URLs.isHTTP(URLs.rewritePodcastScheme(String(line.prefix { !$0.isWhitespace })))
        }) else { return nil }
        return .urlList(file: file, count: lines.count)
    }

    /// Where feedctl's own outline attributes live: `feedctl:platform` keeps a YouTube or Rumble
    /// channel one when it comes back (its feed URL alone may not say: a mirror, a test server).
    /// Other readers skip it: gPodder reads `type="rss"` outlines, newsboat and AntennaPod only
    /// `xmlUrl` and the titles.
    public static let namespace = "urn:feedctl:opml"
    /// `attributes(of:)`'s key for `feedctl:platform`.
    private static let platformKey = "{\(namespace)}platform"

    /// An OPML 2.0 document listing `feeds` (UTF-8, every outline with `text`, `type="rss"`, and
    /// `feedctl:platform` when its platform is known).
    public static func export(_ feeds: [OPMLFeed], title: String = "feedctl subscriptions", dateCreated: Int64? = nil) -> String {
        var lines = ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>", "<opml version=\"2.0\" xmlns:feedctl=\"\(namespace)\">", "  <head>",
                     "    <title>\(XMLText.escaped(title))</title>"]
        if let dateCreated, let date = UTCDate.rfc822(dateCreated) { lines.append("    <dateCreated>\(date)</dateCreated>") }
        lines += ["  </head>", "  <body>"]
        for feed in feeds {
            var outline = "    <outline type=\"rss\" text=\"\(XMLText.escaped(feed.title))\" title=\"\(XMLText.escaped(feed.title))\" xmlUrl=\"\(XMLText.escaped(feed.xmlURL))\""
            if let html = feed.htmlURL, !html.isEmpty { outline += " htmlUrl=\"\(XMLText.escaped(html))\"" }
            if let platform = feed.platform { outline += " feedctl:platform=\"\(platform.rawValue)\"" }
            lines.append(outline + "/>")
        }
        lines += ["  </body>", "</opml>", ""]
        return lines.joined(separator: "\n")
    }

    // MARK: libxml2 tree access

    private static func name(of node: xmlNodePtr) -> String {
        node.pointee.name.map { String(cString: $0) } ?? ""
    }

    private static func children(of node: xmlNodePtr) -> [xmlNodePtr] {
        var result: [xmlNodePtr] = []
        var child = node.pointee.children
        while let c = child {
            if c.pointee.type == XML_ELEMENT_NODE { result.append(c) }
            child = c.pointee.next
        }
        return result
    }

    /// Attributes by lowercased name (exporters disagree on `xmlUrl`/`xmlURL`), values trimmed;
    /// one in a namespace as `{URI}name`.
    private static func attributes(of node: xmlNodePtr) -> [String: String] {
        var result: [String: String] = [:]
        var attribute = node.pointee.properties
        while let a = attribute {
            if let name = a.pointee.name, let value = xmlNodeListGetString(node.pointee.doc, a.pointee.children, 1) {
                var key = String(cString: name).lowercased()
                if let uri = a.pointee.ns?.pointee.href { key = "{\(String(cString: uri))}" + key }
                result[key] = String(cString: value).trimmingCharacters(in: .whitespacesAndNewlines)
                feedctl_xmlFree(value)
            }
            attribute = a.pointee.next
        }
        return result
    }

}
