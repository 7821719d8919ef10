import FeedModel

/// A subscribed channel with its sync bookkeeping.
public struct Channel: Sendable, Equatable {
    public var id: Int64
    public var platform: Platform
    /// The URL the person subscribed with (channel page, podcast site or feed).
    public var sourceURL: String
    /// The URL that is polled.
    public var feedURL: String
    public var name: String
    public var image: String?
    public var active: Bool
    public var addedAt: Int64
    public var lastSynced: Int64?
    public var lastError: String?
    public var consecutiveErrors: Int
    /// Unix seconds; nil means due now.
    public var nextPoll: Int64?
    public var etag: String?
    public var lastModified: String?
    public var bodyHash: String?
    /// Playback speed remembered for this channel's items; nil when none was ever chosen.
    public var speed: Double?
    /// What its polls may connect to: what all its subscriptions may (`AddressReach`).
    public var reach: AddressReach

    public init(id: Int64, platform: Platform, sourceURL: String, feedURL: String, name: String, image: String? = nil,
                active: Bool = true, addedAt: Int64, lastSynced: Int64? = nil, lastError: String? = nil,
                consecutiveErrors: Int = 0, nextPoll: Int64? = nil, etag: String? = nil, lastModified: String? = nil,
                bodyHash: String? = nil, speed: Double? = nil, reach: AddressReach = .publicOnly) {
        self.id = id; self.platform = platform; self.sourceURL = sourceURL; self.feedURL = feedURL; self.name = name
        self.image = image; self.active = active; self.addedAt = addedAt; self.lastSynced = lastSynced
        self.lastError = lastError; self.consecutiveErrors = consecutiveErrors; self.nextPoll = nextPoll
        self.etag = etag; self.lastModified = lastModified; self.bodyHash = bodyHash; self.speed = speed
        self.reach = reach
    }
}
