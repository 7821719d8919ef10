import Foundation

/// URL work done once, after parsing, for every format.
public enum URLs {
    /// Resolves `reference` against `base` (an `xml:base` or the document's URL). Absolute
    /// references come back unchanged; with no usable base the reference is returned trimmed.
    public static func resolve(_ reference: String, against base: String?) -> String {
        let ref = reference.trimmingWhitespace()
        guard !ref.isEmpty else { return ref }
        let rewritten = rewritePodcastScheme(ref)
        if hasScheme(rewritten) { return rewritten }
        guard let base, let baseURL = URL(string: rewritePodcastScheme(base)), baseURL.scheme != nil,
              let url = URL(string: ref.addingPercentEncodingForURL(), relativeTo: baseURL) else { return ref }
        return url.absoluteString
    }

    /// `itpc://`, `feed://`, `pcast://` (and `feed:https://…`) are podcast-app schemes for http(s).
    public static func rewritePodcastScheme(_ url: String) -> String {
        // Cheap exit for the usual http(s) URL: only f…, i…, p… can be podcast schemes.
        guard let f = url.utf8.first else { return url }
        switch f | 0x20 {
        case UInt8(ascii: "f"), UInt8(ascii: "i"), UInt8(ascii: "p"): break
        default: return url
        }
        let lower = url.lowercased()
        for prefix in ["feed:https://", "feed:http://"] where lower.hasPrefix(prefix) {
            return String(url.dropFirst(5))
        }
        for scheme in ["itpc://", "feed://", "pcast://", "podcast://"] where lower.hasPrefix(scheme) {
            return "https://" + url.dropFirst(scheme.count)
        }
        return url
    }

    /// Whether `url` starts with `http://` or `https://`, in any letter case: the only schemes
    /// feedctl fetches or plays from feeds.
    public static func isHTTP(_ url: String) -> Bool {
        url.hasASCIICaselessPrefix("http://") || url.hasASCIICaselessPrefix("https://")
    }

    /// RFC 3986 `scheme ":"`: an ASCII letter, then letters, digits, `+`, `-` or `.`.
    /// Reads the bytes in place (iterating `utf8` cost ~10x as much, per URL of every item).
    static func hasScheme(_ s: String) -> Bool {
        s.withBytes { b in
            guard let first = b.first, isLetter(first) else { return false }
            for i in 1..<b.count {
                let c = b[i]
                if c == UInt8(ascii: ":") { return true }
                guard isLetter(c) || isDigit(c) || c == UInt8(ascii: "+") || c == UInt8(ascii: "-") || c == UInt8(ascii: ".") else { return false }
            }
            return false
        }
    }
}

extension String {
    /// Percent-encodes characters URL(string:) rejects (spaces, non-ASCII), keeping the URL's structure.
    func addingPercentEncodingForURL() -> String {
        if URL(string: self) != nil { return self }
        var allowed = CharacterSet.urlQueryAllowed
        allowed.insert(charactersIn: "#%")
        return addingPercentEncoding(withAllowedCharacters: allowed) ?? self
    }
}

/// Stable identity for items, independent of the document's order or time of parsing.
public enum ItemIdentity {
    /// YouTube → video id; Rumble → `v…` token; else guid, enclosure URL, link, or a hash of
    /// title + published date.
    public static func fallback(guid: String?, enclosureURL: String?, link: String?, title: String, published: Int64?) -> String {
        for candidate in [guid, enclosureURL, link] {
            if let c = candidate?.trimmingWhitespace(), !c.isEmpty { return c }
        }
        return "sha:" + fnv1a64(title + "|" + (published.map(String.init) ?? ""))
    }

    /// The `v…` token of a Rumble video URL's path (`/v6abc12-some-slug.html` → `v6abc12`).
    /// Also `/embed/v6abc12/`. A bare word such as `/c/NAME/videos` is not a video.
    public static func rumbleID(fromURL url: String) -> String? {
        let path = url.prefix { $0 != "?" && $0 != "#" }
        let segments = path.split(separator: "/")
        guard let last = segments.last, last.first == "v" else { return nil }
        let token = last.prefix { $0 != "-" && $0 != "." }
        let isEmbed = segments.count >= 2 && segments[segments.count - 2] == "embed"
        guard token.count > 1, token.count < last.count || isEmbed,
              token.dropFirst().allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else { return nil }
        return String(token)
    }

    /// FNV-1a, 64-bit, as 16 hex digits: stable across runs and platforms (Swift's Hasher is not).
    static func fnv1a64(_ s: String) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in s.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        let hex = String(h, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
