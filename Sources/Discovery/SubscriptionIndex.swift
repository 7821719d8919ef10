import FeedModel
import LibraryStore

/// What the user already follows, as keys a result can be looked up by: a feed's URL, a channel
/// page's URL, a YouTube channel id (a channel is subscribed by its feed,
/// `feeds/videos.xml?channel_id=UC…`, and found by its page, `/channel/UC…`), a Rumble channel's
/// path (`c/NAME`).
public struct SubscriptionIndex: Sendable {
    private var keys: Set<String> = []

    public init(_ channels: [Channel]) {
        for channel in channels {
            for url in [channel.feedURL, channel.sourceURL] { keys.formUnion(Self.keys(url)) }
        }
    }

    /// Whether the result's channel (a channel result itself, or a video's channel) is followed.
    public func contains(_ result: DiscoveryResult) -> Bool {
        var candidates = [result.feedURL, result.channelURL].compactMap { $0 }
        if result.kind == .channel { candidates.append(result.url) }
        if result.platform == .youtube, let id = result.channelID { candidates.append("https://www.youtube.com/channel/\(id)") }
        return candidates.contains { !keys.isDisjoint(with: Self.keys($0)) }
    }

    static func keys(_ url: String) -> Set<String> {
        var keys: Set<String> = [normalized(url)]
        if let id = youTubeChannelID(url) { keys.insert("youtube " + id) }
        if Platform(guessingFrom: url) == .rumble, let path = rumblePath(url) { keys.insert("rumble " + path) }
        return keys
    }

    /// A URL compared loosely: scheme and `www.` dropped, host lowercased, no fragment, no
    /// trailing slash (`HTTPS://www.Example.com/feed/` and `http://example.com/feed` match).
    static func normalized(_ url: String) -> String {
        var rest = Substring(url.prefix { $0 != "#" })
        if let scheme = rest.range(of: "://") { rest = rest[scheme.upperBound...] }
        let host = rest.prefix { $0 != "/" && $0 != "?" }
        var path = rest[host.endIndex...]
        while path.hasSuffix("/") { path = path.dropLast() }
        var name = host.lowercased()
        if name.hasPrefix("www.") { name.removeFirst(4) }
        return name + path
    }

    /// `UC…` from `/channel/UC…` or `?channel_id=UC…`.
    static func youTubeChannelID(_ url: String) -> String? {
        guard Platform(guessingFrom: url) == .youtube else { return nil }
        for marker in ["/channel/", "channel_id="] {
            if let range = url.range(of: marker) {
                let id = url[range.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }
                if id.hasPrefix("UC") { return String(id) }
            }
        }
        return nil
    }

    /// `c/name` from `https://rumble.com/c/Name[/videos]` (lowercased: Rumble's paths ignore case).
    static func rumblePath(_ url: String) -> String? {
        let parts = normalized(url).split(separator: "/")
        guard parts.count >= 3, parts[1] == "c" || parts[1] == "user" else { return nil }
        return (parts[1] + "/" + parts[2]).lowercased()
    }
}
