import FeedModel

/// How `feed` orders and selects items.
public enum FeedMode: String, Sendable, CaseIterable {
    /// By publish date, newest first; unknown dates last, then by discovery time.
    case newest
    /// In-progress items (most recently played first), then unwatched items of the last `days`
    /// oldest-first, round-robin across channels so one prolific channel cannot flood the page.
    case catchUp = "catch-up"
    /// Short items (`ShortForm`), newest first.
    case shortForm = "short-form"
    /// Never-started items of the channels played least, one per channel in turn, each
    /// channel's newest first (`DiscoveryMode`): forgotten subscriptions surface.
    case discovery
}

/// Which items a feed shows.
public struct FeedFilter: Sendable, Equatable {
    public var platform: Platform?
    public var channelID: Int64?
    /// Only items not marked watched (in-progress ones included).
    public var unwatchedOnly: Bool
    /// Only items marked watched (the server's `filter=watched`); with `unwatchedOnly` too, nothing.
    public var watchedOnly: Bool

    public init(platform: Platform? = nil, channelID: Int64? = nil, unwatchedOnly: Bool = false, watchedOnly: Bool = false) {
        self.platform = platform; self.channelID = channelID; self.unwatchedOnly = unwatchedOnly; self.watchedOnly = watchedOnly
    }
}

/// One page of the feed: its mode, filter and page; `days` is catch-up's window (`CatchUp`).
public struct FeedQuery: Sendable, Equatable {
    public var mode: FeedMode
    public var filter: FeedFilter
    public var page: PageRequest
    public var days: Int

    public init(mode: FeedMode = .newest, filter: FeedFilter = FeedFilter(), page: PageRequest = .first(50),
                days: Int = CatchUp.defaultDays) {
        self.mode = mode; self.filter = filter; self.page = page; self.days = days
    }
}

extension FeedQuery {
    /// Catch-up's window as of `now`: items published at or after this (Unix seconds) are
    /// missed. A window reaching past any date (absurd `days` from a command line) starts at the
    /// earliest time rather than trapping on overflow.
    public func windowStart(now: Int64) -> Int64 {
        let (span, spanOverflow) = Int64(days).multipliedReportingOverflow(by: 86_400)
        let (start, startOverflow) = now.subtractingReportingOverflow(span)
        return spanOverflow || startOverflow ? Int64.min : start
    }
}
