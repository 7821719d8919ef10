import FeedText

/// The feed URLs YouTube serves for channels and playlists.
public enum YouTubeFeeds {
    package static let base = "https://www.youtube.com/feeds/videos.xml"

    public static func channelFeedURL(_ id: String) -> String { base + "?channel_id=" + id }

    public static func playlistFeedURL(_ id: String) -> String { base + "?playlist_id=" + id }

    /// The playlist of a channel's Shorts: `UC…` → `UUSH…` (same 22-character suffix). Also
    /// accepts the bare 22 characters, as YouTube's feed-level `yt:channelId` gives them.
    public static func shortsPlaylistID(forChannel id: String) -> String {
        "UUSH" + (id.hasPrefix("UC") && id.count == 24 ? String(id.dropFirst(2)) : id)
    }

    /// `UC` + 22 of `[A-Za-z0-9_-]`.
    package static func isChannelID(_ s: some StringProtocol) -> Bool {
        s.utf8.count == 24 && s.hasPrefix("UC") && s.utf8.allSatisfy(isIDByte)
    }

    /// A playlist id: `PL…`, `UU…`, `OL…`, …; letters, digits, `_`, `-`.
    package static func isPlaylistID(_ s: some StringProtocol) -> Bool {
        (2...64).contains(s.utf8.count) && s.utf8.allSatisfy(isIDByte)
    }

    static func isIDByte(_ c: UInt8) -> Bool { isDigit(c) || isLetter(c) || c == UInt8(ascii: "_") || c == UInt8(ascii: "-") }
}
