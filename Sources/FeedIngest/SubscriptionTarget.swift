/// What a URL a person pastes into `feedctl channel add` points at, and so how to subscribe.
public enum SubscriptionTarget: Equatable, Sendable {
    /// A podcast RSS/Atom feed, or any other URL: fetched and parsed as a feed.
    case feed(url: String)
    /// A YouTube channel id (`UC` + 22 characters); its feed is `YouTubeFeeds.channelFeedURL`.
    case youtubeChannel(channelID: String)
    /// A YouTube playlist id; its feed is `YouTubeFeeds.playlistFeedURL`.
    case youtubePlaylist(playlistID: String)
    /// A YouTube page (`/@handle`, `/c/NAME`, `/user/NAME`, a video) that has to be fetched and
    /// resolved to a channel id with `YouTubePage.channelID(fromHTML:)`.
    case youtubePage(url: String)
    /// A Rumble channel's listing page (`https://rumble.com/c/NAME/videos`, `/user/NAME`).
    case rumbleChannel(listingURL: String)
}
