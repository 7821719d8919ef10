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

    /// A URL a feed may hand on: http(s), or relative (no scheme: a local file parsed without a
    /// base keeps its relative links). `file:`, `javascript:`, `data:` and every other scheme are
    /// not kept: an `xml:base="file:///etc/"` must not make `passwd` a stored enclosure.
    public static func isKeepable(_ url: String) -> Bool {
        isHTTP(url) || !hasScheme(url)
    }

    /// RFC 3986 `scheme ":"`: an ASCII letter, then letters, digits, `+`, `-` or `.`.
    /// Reads the bytes in place (iterating `utf8` cost ~10x as much, per URL of every item).
    package static func hasScheme(_ s: String) -> Bool {
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
    package func addingPercentEncodingForURL() -> String {
        if URL(string: self) != nil { return self }
        var allowed = CharacterSet.urlQueryAllowed
        allowed.insert(charactersIn: "#%")
        return addingPercentEncoding(withAllowedCharacters: allowed) ?? self
    }
}
