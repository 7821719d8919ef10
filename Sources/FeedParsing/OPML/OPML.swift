import CLibXML2
import FeedText
import Foundation

/// A subscription as OPML carries it.
public struct OPMLFeed: Sendable, Equatable {
    public var title: String
    public var xmlURL: String
    public var htmlURL: String?
    public init(title: String, xmlURL: String, htmlURL: String? = nil) {
        self.title = title; self.xmlURL = xmlURL; self.htmlURL = htmlURL
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
            throw .malformed(file: file, why: why)
        }
        defer { xmlFreeDoc(doc) }
        guard let root = xmlDocGetRootElement(doc) else { throw .malformed(file: file, why: "no root element") }
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
            feeds.append(OPMLFeed(title: title, xmlURL: url, htmlURL: attributes["htmlurl"].flatMap { $0.isEmpty ? nil : $0 }))
        }
        return feeds
    }

    /// An OPML 2.0 document listing `feeds` (UTF-8, every outline with `text`, `type="rss"`).
    public static func export(_ feeds: [OPMLFeed], title: String = "feedctl subscriptions", dateCreated: Int64? = nil) -> String {
        var lines = ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>", "<opml version=\"2.0\">", "  <head>",
                     "    <title>\(escape(title))</title>"]
        if let dateCreated { lines.append("    <dateCreated>\(rfc822(dateCreated))</dateCreated>") }
        lines += ["  </head>", "  <body>"]
        for feed in feeds {
            var outline = "    <outline type=\"rss\" text=\"\(escape(feed.title))\" title=\"\(escape(feed.title))\" xmlUrl=\"\(escape(feed.xmlURL))\""
            if let html = feed.htmlURL, !html.isEmpty { outline += " htmlUrl=\"\(escape(html))\"" }
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

    /// Attributes by lowercased name (exporters disagree on `xmlUrl`/`xmlURL`), values trimmed.
    private static func attributes(of node: xmlNodePtr) -> [String: String] {
        var result: [String: String] = [:]
        var attribute = node.pointee.properties
        while let a = attribute {
            if let name = a.pointee.name, let value = xmlNodeListGetString(node.pointee.doc, a.pointee.children, 1) {
                result[String(cString: name).lowercased()] = String(cString: value).trimmingCharacters(in: .whitespacesAndNewlines)
                feedctl_xmlFree(value)
            }
            attribute = a.pointee.next
        }
        return result
    }

    // MARK: writing

    /// Escapes for an attribute or text node; drops characters XML 1.0 cannot carry at all.
    static func escape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for scalar in s.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "\n": out += "&#10;"
            case "\r": out += "&#13;"
            case "\t": out += "&#9;"
            default:
                let v = scalar.value
                if v >= 0x20 && v != 0xFFFE && v != 0xFFFF { out.unicodeScalars.append(scalar) }
            }
        }
        return out
    }

    private static func rfc822(_ time: Int64) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss Z"
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(time)))
    }
}
