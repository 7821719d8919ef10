import FeedModel

/// One thing a discovery provider found: a video or episode to play or save, or a channel or
/// podcast to subscribe to. It carries what acting on it needs (the feed or channel URL to
/// subscribe, the page or audio URL to play, the library id when the library has it).
public struct DiscoveryResult: Sendable, Equatable {
    public enum Kind: String, Sendable, Codable { case video, channel }

    public var kind: Kind
    public var platform: Platform
    /// The provider that found it (`DiscoveryProvider.name`).
    public var provider: String
    /// The platform's own id: a video id, a channel id, a podcast's collection or feed id.
    public var id: String
    public var title: String
    /// The web page: the video, the channel, the podcast's page (a podcast's feed if it has none).
    public var url: String
    /// A podcast's RSS feed (what subscribing takes for podcasts and their episodes).
    public var feedURL: String?
    public var channelName: String?
    public var channelURL: String?
    public var channelID: String?
    public var description: String?
    public var thumbnail: String?
    public var duration: Int?
    public var views: Int64?
    /// Unix seconds.
    public var published: Int64?
    /// An episode's media (it plays at once, without yt-dlp).
    public var audioURL: String?
    /// The item's id in the library, for results the library already has (play, save).
    public var libraryItemID: Int64?
    /// Already followed: the channel (or the video's channel) is one of the user's subscriptions.
    public var subscribed: Bool

    public init(kind: Kind, platform: Platform, provider: String, id: String, title: String, url: String,
                feedURL: String? = nil, channelName: String? = nil, channelURL: String? = nil, channelID: String? = nil,
                description: String? = nil, thumbnail: String? = nil, duration: Int? = nil, views: Int64? = nil,
                published: Int64? = nil, audioURL: String? = nil, libraryItemID: Int64? = nil, subscribed: Bool = false) {
        self.kind = kind; self.platform = platform; self.provider = provider; self.id = id; self.title = title
        self.url = url; self.feedURL = feedURL; self.channelName = channelName; self.channelURL = channelURL
        self.channelID = channelID; self.description = description; self.thumbnail = thumbnail; self.duration = duration
        self.views = views; self.published = published; self.audioURL = audioURL; self.libraryItemID = libraryItemID
        self.subscribed = subscribed
    }

    /// What `channel add` takes to follow it: a podcast's feed, else the channel's page (a video's
    /// channel). Nil when the provider did not say.
    public var subscribeURL: String? {
        feedURL ?? (kind == .channel ? url : channelURL)
    }

    /// What `play` takes: the library item, the episode's media, or the video's page (yt-dlp).
    public var playTarget: String? {
        guard kind == .video else { return nil }
        if let libraryItemID { return String(libraryItemID) }
        return audioURL ?? url
    }

    /// Two providers finding the same thing give the same key: a podcast by its feed, anything
    /// else by platform, kind and id.
    var identity: String {
        if let feedURL, kind == .channel { return "feed " + SubscriptionIndex.normalized(feedURL) }
        return "\(platform.rawValue) \(kind.rawValue) \(id)"
    }
}
