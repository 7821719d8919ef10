import FeedModel

/// One change to a user's state, as the library's change log keeps it (`ChangeFeed`): its
/// place in the log (`seq`, only growing), whose it is, its kind, and what changed as a JSON
/// object (the `/api/events` wire's `data`, written by the store, never from a request).
public struct Change: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        /// `{item_id, watched, progress_seconds}`: a watched mark, an unwatched one, a progress.
        case watch
        /// `{saved_id, item_id|null, action: added|updated|removed}`.
        case saved
        /// `{collection_id, action: created|updated|deleted|items}`.
        case collection
        /// `{channel_id, action: added|updated|removed}`.
        case subscription
        /// `{channel_id, new_items, error|null}`: a poll that found items, or whose error changed.
        case sync
        /// `{followed_id, action: added|updated|withdrawn|removed}`: a collection the user follows
        /// (its owner changed it, or withdrew it; a sync read another server's anew), or their
        /// following it.
        case followed
    }

    public var seq: Int64
    public var user: UserID
    public var kind: Kind
    public var payload: String

    public init(seq: Int64, user: UserID, kind: Kind, payload: String) {
        self.seq = seq; self.user = user; self.kind = kind; self.payload = payload
    }
}

/// What the change log holds after a point.
public enum ChangeBatch: Sendable, Equatable {
    /// The changes after it, oldest first (none: nothing new).
    case changes([Change])
    /// Changes after it were pruned (`ChangeFeedRule.kept`), or it is past the latest change (a
    /// log that started over: another library): a reader starts over from `latest`.
    case gone(latest: Int64)
}

/// The library's change log: every change to any user's watch state, saved items, collections,
/// subscriptions, and the polls of their channels that found items or changed their error,
/// whoever made it (the CLI, the daemon, the server, another process on the same library). What
/// `/api/events` streams. Unlike the other stores it is every user's: the reader sends each
/// change only to `Change.user`. The SQLite store keeps it in a table its triggers fill; another
/// engine may keep it its own way (PostgreSQL: a table and LISTEN/NOTIFY) behind the same calls.
public protocol ChangeFeed: Sendable {
    /// The changes after `seq`, oldest first, at most `limit`; `.gone` when some after `seq` were
    /// pruned or `seq` is past the latest.
    func changes(after seq: Int64, limit: Int) async throws(LibraryError) -> ChangeBatch
    /// The latest change's `seq` (0 before the first): where a reader that wants only what
    /// comes next starts.
    func latestChange() async throws(LibraryError) -> Int64
    /// Returns when a reader waiting for a change after `seq` should look at the log. An engine
    /// that is told of changes as they commit (PostgreSQL's LISTEN/NOTIFY, from any process on
    /// the database) returns then, or after `timeout` at the latest; one that cannot tell (the
    /// default: SQLite), or cannot for now, returns after `poll`: its reader polls.
    func waitForChange(after seq: Int64, poll: Duration, timeout: Duration) async
}

extension ChangeFeed {
    public func waitForChange(after seq: Int64, poll: Duration, timeout: Duration) async {
        try? await Task.sleep(for: min(poll, timeout))
    }
}
