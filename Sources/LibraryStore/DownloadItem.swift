import FeedModel

/// What a download needs to know about a library item.
public struct DownloadItem: Sendable, Equatable {
    public var id: Int64
    public var title: String
    public var channelID: Int64
    public var channel: String
    public var platform: Platform
    public var published: Int64?
    public var enclosureURL: String?
    public var enclosureType: String?
    /// The enclosure's `length` from the feed; nil when missing or zero.
    public var enclosureLength: Int64?
    /// When the library first saw the item (Unix seconds): no file written earlier can be its
    /// download (see `DownloadStore.adopt`).
    public var discoveredAt: Int64?
    /// What its channel's fetches may connect to (`AddressReach`): its download's too.
    public var reach: AddressReach

    public init(id: Int64, title: String, channelID: Int64, channel: String, platform: Platform, published: Int64?,
                enclosureURL: String?, enclosureType: String?, enclosureLength: Int64?, discoveredAt: Int64? = nil,
                reach: AddressReach = .publicOnly) {
        self.discoveredAt = discoveredAt; self.reach = reach
        self.id = id; self.title = title; self.channelID = channelID; self.channel = channel; self.platform = platform
        self.published = published; self.enclosureURL = enclosureURL; self.enclosureType = enclosureType
        self.enclosureLength = enclosureLength.flatMap { $0 > 0 ? $0 : nil }
    }
}
