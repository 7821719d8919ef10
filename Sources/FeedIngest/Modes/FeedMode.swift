/// How `feed` orders and selects items.
public enum FeedMode: String, Sendable, CaseIterable {
    /// By publish date, newest first; unknown dates last, then by discovery time.
    case newest
    /// In-progress items (most recently played first), then unwatched items of the last `days`
    /// oldest-first, round-robin across channels so one prolific channel cannot flood the page.
    case catchUp = "catch-up"
    /// Items of at most 180 s or flagged short, newest first.
    case shortForm = "short-form"

    /// Longest duration (seconds) that counts as short-form.
    public static let shortMaxDuration = 180
}

/// Which items a feed shows.
public struct FeedFilter: Sendable, Equatable {
    public var platform: Platform?
    public var channelID: Int64?
    /// Only items not marked watched (in-progress ones included).
    public var unwatchedOnly: Bool

    public init(platform: Platform? = nil, channelID: Int64? = nil, unwatchedOnly: Bool = false) {
        self.platform = platform; self.channelID = channelID; self.unwatchedOnly = unwatchedOnly
    }
}
