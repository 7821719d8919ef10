import FeedModel

/// An item as `feed --json` and `show --json` print it (the CLI contract; keys are fixed).
public struct LibraryItem: Sendable, Equatable, Encodable {
    /// The library's id (what `show`, `watched`, `play` take).
    public var id: Int64
    /// The parser's id (video id, guid…).
    public var itemID: String
    public var channelID: Int64
    /// The channel's name.
    public var channel: String
    public var platform: Platform
    public var title: String
    @Nullable public var url: String?
    @Nullable public var published: Int64?
    @Nullable public var duration: Int?
    public var isShort: Bool
    public var watched: Bool
    /// Seconds played so far.
    public var progress: Int
    @Nullable public var enclosureURL: String?
    @Nullable public var thumbnail: String?

    public init(id: Int64, itemID: String, channelID: Int64, channel: String, platform: Platform, title: String,
                url: String?, published: Int64?, duration: Int?, isShort: Bool, watched: Bool, progress: Int,
                enclosureURL: String?, thumbnail: String?) {
        self.id = id; self.itemID = itemID; self.channelID = channelID; self.channel = channel
        self.platform = platform; self.title = title; self.url = url; self.published = published
        self.duration = duration; self.isShort = isShort; self.watched = watched; self.progress = progress
        self.enclosureURL = enclosureURL; self.thumbnail = thumbnail
    }

    enum CodingKeys: String, CodingKey {
        case id, itemID = "item_id", channelID = "channel_id", channel, platform, title, url, published
        case duration, isShort = "is_short", watched, progress, enclosureURL = "enclosure_url", thumbnail
    }
}
