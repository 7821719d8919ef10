import FeedParsing
import FeedText
import Foundation

/// Classifies the URLs people subscribe with. Pure: nothing is fetched here.
public enum SubscriptionURL {
    /// The subscription `url` stands for, or nil when it is not an http(s) URL. Podcast-app
    /// schemes (`itpc://`, `feed://`, `pcast://`, `feed:https://`) are read as https, and a URL
    /// without a scheme (`youtube.com/@name`, `example.com/feed.xml`) as https.
    public static func classify(_ url: String) -> SubscriptionTarget? {
        var text = URLs.rewritePodcastScheme(url.trimmingWhitespace())
        guard !text.isEmpty, !text.contains(where: \.isWhitespace) else { return nil }
        if !URLs.hasScheme(text) || text.lowercased().hasPrefix("www.") {
            guard looksLikeHost(text) else { return nil }
            text = "https://" + text
        }
        guard let parts = URLComponents(string: text.addingPercentEncodingForURL()),
              let scheme = parts.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = parts.host?.lowercased(), !host.isEmpty else { return nil }
        let path = parts.percentEncodedPath.split(separator: "/").map(String.init)
        let query = parts.queryItems ?? []
        func parameter(_ name: String) -> String? { query.first { $0.name == name }?.value.flatMap { $0.isEmpty ? nil : $0 } }

        switch host {
        case "youtube.com", "www.youtube.com", "m.youtube.com", "music.youtube.com":
            return youtube(path: path, parameter: parameter)
        case "youtu.be":
            guard let video = path.first else { return .youtubePage(url: "https://www.youtube.com/") }
            return .youtubePage(url: "https://www.youtube.com/watch?v=" + video)
        case "rumble.com", "www.rumble.com":
            if path.count >= 2, path[0] == "c" {
                return .rumbleChannel(listingURL: "https://rumble.com/c/\(path[1])/videos")
            }
            if path.count >= 2, path[0] == "user" {
                return .rumbleChannel(listingURL: "https://rumble.com/user/\(path[1])")
            }
            return .feed(url: text)
        default:
            return .feed(url: text)
        }
    }

    private static func youtube(path: [String], parameter: (String) -> String?) -> SubscriptionTarget {
        let site = "https://www.youtube.com/"
        switch path.first {
        case "feeds":
            if let id = parameter("channel_id"), YouTubeFeeds.isChannelID(id) { return .youtubeChannel(channelID: id) }
            if let id = parameter("playlist_id"), YouTubeFeeds.isPlaylistID(id) { return .youtubePlaylist(playlistID: id) }
            if let user = parameter("user") { return .feed(url: YouTubeFeeds.base + "?user=" + user) }
        case "channel":
            if path.count >= 2, YouTubeFeeds.isChannelID(path[1]) { return .youtubeChannel(channelID: path[1]) }
        case "playlist":
            if let id = parameter("list"), YouTubeFeeds.isPlaylistID(id) { return .youtubePlaylist(playlistID: id) }
        case "watch":
            if let video = parameter("v") { return .youtubePage(url: site + "watch?v=" + video) }
        case "shorts", "live", "embed", "v":
            if path.count >= 2 { return .youtubePage(url: site + "watch?v=" + path[1]) }
        case "c", "user":
            if path.count >= 2 { return .youtubePage(url: site + path[0] + "/" + path[1]) }
        case let first? where first.hasPrefix("@"):
            return .youtubePage(url: site + first)
        case let first? where path.count == 1 && !reservedPaths.contains(first):
            return .youtubePage(url: site + first)       // legacy custom URL: youtube.com/NAME
        default:
            break
        }
        return .youtubePage(url: site + path.joined(separator: "/"))
    }

    /// Single-segment YouTube paths that are site pages, not legacy channel names.
    static let reservedPaths: Set<String> = ["results", "feed", "premium", "account", "about", "t", "howyoutubeworks"]

    /// `host.tld[:port][/…]`: a dot in the first segment, host characters only.
    private static func looksLikeHost(_ s: String) -> Bool {
        let host = s.prefix { $0 != "/" && $0 != "?" && $0 != "#" }.prefix { $0 != ":" }
        return host.contains(".") && !host.hasPrefix(".") && !host.hasSuffix(".")
            && host.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "." || $0 == "-") }
    }
}
