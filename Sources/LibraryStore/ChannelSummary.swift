import FeedModel

/// A channel as `channel list --json` prints it (the CLI contract; keys are fixed).
public struct ChannelSummary: Sendable, Equatable, Encodable {
    public var id: Int64
    public var platform: Platform
    public var name: String
    /// The source URL the person subscribed with.
    public var url: String
    public var feedURL: String
    public var items: Int
    public var unwatched: Int
    @Nullable public var lastSynced: Int64?
    @Nullable public var lastError: String?
    @Nullable public var nextPoll: Int64?
    /// What the parser recovered from in the feed's last parsed body (`Feed.warnings`): a feed
    /// that is broken says so before it loses episodes. Empty when it was clean.
    public var warnings: [String]
    /// The feed's own URL as it declares it (`atom:link rel="self"`).
    @Nullable public var selfURL: String?
    /// The feed's next page (`atom:link rel="next"`, Rumble's paginator).
    @Nullable public var nextPage: String?
    /// Podcasting 2.0 `podcast:funding` of the channel.
    public var funding: [Link]

    public init(id: Int64, platform: Platform, name: String, url: String, feedURL: String, items: Int,
                unwatched: Int, lastSynced: Int64?, lastError: String?, nextPoll: Int64?, warnings: [String] = [],
                selfURL: String? = nil, nextPage: String? = nil, funding: [Link] = []) {
        self.id = id; self.platform = platform; self.name = name; self.url = url; self.feedURL = feedURL
        self.items = items; self.unwatched = unwatched; self.lastSynced = lastSynced
        self.lastError = lastError; self.nextPoll = nextPoll; self.warnings = warnings
        self.selfURL = selfURL; self.nextPage = nextPage; self.funding = funding
    }

    enum CodingKeys: String, CodingKey {
        case id, platform, name, url, feedURL = "feed_url", items, unwatched
        case lastSynced = "last_synced", lastError = "last_error", nextPoll = "next_poll"
        case warnings, selfURL = "self_url", nextPage = "next_page", funding
    }
}

/// Which of a user's subscriptions to list (`ChannelStore.subscriptions`).
public struct SubscriptionQuery: Sendable, Equatable {
    public var platform: Platform?
    /// Only subscriptions being polled (true) or paused (false).
    public var active: Bool?
    /// One page; nil: every one that matches.
    public var page: PageRequest?

    public init(platform: Platform? = nil, active: Bool? = nil, page: PageRequest? = nil) {
        self.platform = platform; self.active = active; self.page = page
    }
}

/// A channel as a subscriber lists it: the channel with their subscription, and its counts.
public struct Subscription: Sendable, Equatable {
    public var channel: Channel
    public var summary: ChannelSummary
    public init(channel: Channel, summary: ChannelSummary) { self.channel = channel; self.summary = summary }
}

/// Subscriptions listed, and how many matched in all (more than listed when paged).
public struct SubscriptionPage: Sendable, Equatable {
    public var subscriptions: [Subscription]
    public var total: Int
    public init(subscriptions: [Subscription], total: Int) { self.subscriptions = subscriptions; self.total = total }
}
