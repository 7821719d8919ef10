import FeedText

/// Stable identity for items, independent of the document's order or time of parsing.
public enum ItemIdentity {
    /// What starts an id made from an item's title and date (it has no guid, enclosure or link).
    public static let hashPrefix = "sha:"

    /// YouTube → video id; Rumble → `v…` token; else guid, enclosure URL, link, or a hash of
    /// title + published date.
    public static func fallback(guid: String?, enclosureURL: String?, link: String?, title: String, published: Int64?) -> String {
        for candidate in [guid, enclosureURL, link] {
            if let c = candidate?.trimmingWhitespace(), !c.isEmpty { return c }
        }
        return hashPrefix + fnv1a64(title + "|" + (published.map(String.init) ?? ""))
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
    package static func fnv1a64(_ s: String) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in s.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        let hex = String(h, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
