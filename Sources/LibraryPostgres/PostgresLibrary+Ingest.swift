import FeedModel
import LibraryStore

// Applying polls (the ingest), as the SQLite library (SQLiteLibrary+Ingest.swift): each poll's
// items and its channel's bookkeeping together; the batch in one transaction, each poll in its
// own when the batch fails.
extension PostgresLibrary {
    public func apply(_ polls: [Poll], now: Int64) async -> [Result<PollApplied, LibraryError>] {
        await apply(polls, claimant: nil, now: now)
    }

    /// `SyncStore.apply`, and polling's with the claimant whose claims it releases (nil: none).
    func apply(_ polls: [Poll], claimant: String?, now: Int64) async -> [Result<PollApplied, LibraryError>] {
        guard !polls.isEmpty else { return [] }
        let user = user
        // One transaction for the batch: one commit (one WAL flush) instead of one per feed.
        do {
            let applied = try await write { db throws(LibraryError) in
                var batch = PollBatch(db, user: user, claimant: claimant, now: now)
                return try batch.apply(polls)
            }
            return applied.map { .success($0) }
        } catch {}
        // Something in the batch failed: each poll on its own, so one bad feed cannot sink the others.
        var results: [Result<PollApplied, LibraryError>] = []
        for poll in polls {
            do {
                results.append(.success(try await write { db throws(LibraryError) in
                    var batch = PollBatch(db, user: user, claimant: claimant, now: now)
                    return try batch.apply([poll])[0]
                }))
            } catch {
                if case .channel(let id) = poll.subject {
                    // Its channel learns why, and backs off as after a failed fetch.
                    _ = try? await write { db throws(LibraryError) in
                        let batch = PollBatch(db, user: user, claimant: claimant, now: now)
                        try batch.recordFailure(channelID: id, message: try PollBatch.failureMessage(error, channelID: id, db),
                                                retryAfter: nil, pollInterval: poll.pollInterval)
                    }
                }
                results.append(.failure(error))
            }
        }
        return results
    }
}

/// Polls applied in one write transaction (which `PostgresLibrary.write` may run again whole:
/// everything here is re-read from the database).
///
/// Locks are taken in one order by every writer, so two transactions never wait for each
/// other in a cycle (two workers storing polls of different channels at once, a user
/// subscribing meanwhile): first the batch's channels, all at once in id order (those it names,
/// and those its subscriptions' feed URLs name); then what hangs on each channel, which no other
/// transaction touches while it holds the channel (its items, its subscriptions); last the
/// followers' `users` rows (their `feed_items` totals, moved by the subscriptions' item counts),
/// all at once in id order at the end of the batch. A second poll of a channel already being
/// stored waits for the first's commit, then finds its items: nothing is stored twice.
private struct PollBatch {
    let db: PGConnection
    let user: UserID
    let claimant: String?
    let now: Int64
    /// The batch's channels that exist, all locked by this transaction.
    private var channels: Set<Int64> = []
    /// Channels that gained items, in the order they did.
    private var grown: [Int64] = []

    init(_ db: PGConnection, user: UserID, claimant: String?, now: Int64) {
        self.db = db; self.user = user; self.claimant = claimant; self.now = now
    }

    /// Each poll's subject and items first; then the grown channels' counts (their followers'
    /// `sync` changes); then each channel's bookkeeping: a channel's changes are logged in the
    /// order SQLite logs them (its new items, then its error cleared or recorded). The feeds'
    /// merges go to the server together, and so do their channels' updates (`PGConnection.pipeline`);
    /// a new subscription or a failure, which reads before it writes, waits for those before it.
    mutating func apply(_ polls: [Poll]) throws(LibraryError) -> [PollApplied] {
        try lockChannels(of: polls)
        var applied: [PollApplied] = []
        applied.reserveCapacity(polls.count)
        var merges = Pipelined<Int>()  // by the poll's place in `applied`
        for poll in polls {
            if case .subscription = poll.subject { try storeMerges(&merges, into: &applied) }
            let (done, merge) = try store(poll)
            if let merge { merges.add(applied.count, merge) }
            applied.append(done)
        }
        try storeMerges(&merges, into: &applied)
        try recount()
        var updates = Pipelined<Int64>()
        for (poll, done) in zip(polls, applied) {
            if case .failed = poll.outcome { try storeUpdates(&updates) }
            try record(poll, channelID: done.channelID, updating: &updates)
        }
        try storeUpdates(&updates)
        return applied
    }

    /// Runs the merges waiting in `merges` and counts what each stored into its poll's entry.
    private mutating func storeMerges(_ merges: inout Pipelined<Int>, into applied: inout [PollApplied]) throws(LibraryError) {
        for (index, result) in try merges.run(db) {
            guard let row = result.first else { throw PGRow.unexpected("the ingest's merge returned no row") }
            applied[index].ingest = IngestResult(new: try row.get("new"), updated: try row.get("updated"))
            let channelID = applied[index].channelID
            if applied[index].ingest.new > 0, !grown.contains(channelID) { grown.append(channelID) }
        }
    }

    /// Runs the channel updates waiting in `updates`; each must have found its channel.
    private func storeUpdates(_ updates: inout Pipelined<Int64>) throws(LibraryError) {
        for (channelID, result) in try updates.run(db) where result.affected == 0 { throw .noChannel(channelID) }
    }

    private mutating func lockChannels(of polls: [Poll]) throws(LibraryError) {
        var ids: [Int64] = [], feedURLs: [String] = []
        for poll in polls {
            switch poll.subject {
            case .channel(let id): ids.append(id)
            case .subscription(let new): feedURLs.append(new.feedURL)
            }
        }
        let rows = try db.query("""
            SELECT id FROM channels WHERE id = ANY($1::bigint[]) OR feed_url = ANY($2::text[]) ORDER BY id FOR NO KEY UPDATE
            """, [ids, feedURLs]).rows
        for row in rows { channels.insert(try row.get("id")) }
        guard !feedURLs.isEmpty else { return }
        // A new subscription counts its user's total at once (`subscriptions_tallied`), before
        // the batch's counts lock the other followers: every user the batch may count is locked
        // now, in id order. (Nobody follows a locked channel meanwhile: subscribing updates it.)
        try db.query("""
            SELECT id FROM users WHERE id = $1 OR id IN (SELECT user_id FROM subscriptions WHERE channel_id = ANY($2::bigint[]))
            ORDER BY id FOR NO KEY UPDATE
            """, [user.rawValue, Array(channels)])
    }

    /// The poll's subscription, if it is one; its entry (its counts filled in when its items'
    /// merge, returned to run, has run).
    private mutating func store(_ poll: Poll) throws(LibraryError) -> (PollApplied, merge: PGStatement?) {
        let channelID: Int64
        switch poll.subject {
        case .channel(let id): channelID = id
        case .subscription(let new): channelID = try subscribe(new)
        }
        var merge: PGStatement?
        switch poll.outcome {
        case .notFetched: try requireChannel(channelID)
        case .changed(_, let feed): merge = try self.merge(feed.items, channelID: channelID)
        case .unchanged, .failed: break
        }
        return (PollApplied(channelID: channelID, ingest: IngestResult(new: 0, updated: 0)), merge)
    }

    /// The poll's bookkeeping on its channel: a success's update added to `updates`, a failure
    /// recorded now.
    private func record(_ poll: Poll, channelID: Int64, updating updates: inout Pipelined<Int64>) throws(LibraryError) {
        switch poll.outcome {
        case .notFetched:
            break
        case .unchanged(let validators):
            updates.add(channelID, success(channelID: channelID, validators, pollInterval: poll.pollInterval, feed: nil))
        case .changed(let validators, let feed):
            updates.add(channelID, success(channelID: channelID, validators, pollInterval: poll.pollInterval, feed: feed))
        case .failed(let message, let retryAfter):
            try recordFailure(channelID: channelID, message: message, retryAfter: retryAfter, pollInterval: poll.pollInterval)
        }
    }

    private func requireChannel(_ id: Int64) throws(LibraryError) {
        guard channels.contains(id) else { throw .noChannel(id) }
    }

    /// Creates the channel, or, when its feed URL is already in the library (subscribed by this
    /// user or another: channels are shared), updates its platform, source URL, name (unless
    /// empty) and image (when given); then subscribes `user` to it (once). Returns its id. An
    /// existing channel is updated rather than inserted over, so re-subscribing spends no id.
    private mutating func subscribe(_ new: NewChannel) throws(LibraryError) -> Int64 {
        guard !new.feedURL.isEmpty else { throw .invalid("a channel needs a feed URL") }
        let row = try db.query("""
            WITH updated AS (
                UPDATE channels SET platform = $1, source_url = $2,
                    name = CASE WHEN $4 <> '' THEN $4 ELSE name END, image = coalesce($5, image)
                WHERE feed_url = $3 RETURNING id
            ), inserted AS (
                INSERT INTO channels (platform, source_url, feed_url, name, image, added_at)
                SELECT $1::text, $2::text, $3::text, $4::text, $5::text, $6::bigint WHERE NOT EXISTS (SELECT 1 FROM updated)
                ON CONFLICT (feed_url) DO UPDATE SET
                    platform = excluded.platform, source_url = excluded.source_url,
                    name = CASE WHEN excluded.name <> '' THEN excluded.name ELSE channels.name END,
                    image = coalesce(excluded.image, channels.image)
                RETURNING id
            )
            SELECT id FROM updated UNION ALL SELECT id FROM inserted
            """, [new.platform.rawValue, new.sourceURL.isEmpty ? new.feedURL : new.sourceURL, new.feedURL, new.name, new.image, now]).first
        guard let row else { throw PGRow.unexpected("channel \(new.feedURL) was neither updated nor inserted") }
        let id: Int64 = try row.get("id")
        channels.insert(id)
        try db.query("""
            INSERT INTO subscriptions (user_id, channel_id, added_at, private_addresses) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING
            """, [user.rawValue, id, now, new.reach.storedPrivateAddresses])
        return id
    }

    /// Releases the claim of the claimant bound to `parameter` (none when NULL): a poll stored
    /// after its lease expired leaves the claim of whoever polls the channel now.
    private static func releasing(_ parameter: String) -> String {
        """
        claimed_until = CASE WHEN claimed_by = \(parameter)::text THEN NULL ELSE claimed_until END,
        claimed_by = CASE WHEN claimed_by = \(parameter)::text THEN NULL ELSE claimed_by END
        """
    }

    /// A successful poll (changed or not) as one UPDATE, to run: it stores the validators, clears the error
    /// state, schedules the next poll and releases the claim. A nil validator keeps the stored
    /// one (a 304 repeats none). A permanent redirect moves the feed URL, unless another channel
    /// already polls the new one. A parsed `feed` also names the channel (unless its title is
    /// blank), gives its image (when it has one), and replaces what the last body said beyond
    /// its items: its warnings (a feed that was mended loses them), self URL, next page, funding.
    private func success(channelID: Int64, _ v: Validators, pollInterval: Int64, feed: Feed?) -> PGStatement {
        var parameters: [any PGBindable] = [channelID, now, now + max(pollInterval, 1), v.etag, v.lastModified, v.bodyHash,
                                            claimant, v.movedTo]
        var sets = """
            last_synced = $2, last_error = NULL, consecutive_errors = 0, next_poll = $3,
            etag = coalesce($4, etag), last_modified = coalesce($5, last_modified), body_hash = coalesce($6, body_hash),
            \(Self.releasing("$7")),
            feed_url = CASE WHEN $8::text IS NULL OR $8 = '' OR EXISTS (SELECT 1 FROM channels o WHERE o.feed_url = $8 AND o.id <> $1)
                THEN feed_url ELSE $8 END
            """
        if let feed {
            parameters += [ChannelName.fromFeed(title: feed.title), feed.image, StoredJSON.encode(feed.warnings), feed.selfURL,
                           feed.nextPage, StoredJSON.encode(feed.funding)]
            sets += ", name = coalesce($9, name), image = coalesce($10, image), warnings = $11, self_url = $12, next_page = $13, funding = $14"
        }
        return PGStatement(sql: "UPDATE channels SET \(sets) WHERE id = $1::bigint", parameters: parameters)
    }

    /// A failed poll: records the one-line error, counts it, backs off (`SyncPolicy.backoff`)
    /// and releases the claim. The channel's items are untouched.
    func recordFailure(channelID: Int64, message: String, retryAfter: Int64?, pollInterval: Int64) throws(LibraryError) {
        guard let row = try db.query("SELECT consecutive_errors FROM channels WHERE id = $1 FOR NO KEY UPDATE", [channelID]).first else {
            throw .noChannel(channelID)
        }
        let count = (try row.get("consecutive_errors") as Int) + 1
        let next = now + SyncPolicy.backoff(consecutiveErrors: count, pollInterval: pollInterval, retryAfter: retryAfter)
        try db.query("UPDATE channels SET last_error = $2, consecutive_errors = $3, next_poll = $4, \(Self.releasing("$5")) WHERE id = $1",
                     [channelID, message, count, next, claimant])
    }

    /// `https://x/feed.xml: <why>`, as a failed fetch reads.
    static func failureMessage(_ error: LibraryError, channelID: Int64, _ db: PGConnection) throws(LibraryError) -> String {
        let url: String? = try db.query("SELECT feed_url FROM channels WHERE id = $1", [channelID]).first?.get("feed_url")
        // Shown to the channel's followers, over HTTP too: without the library's location.
        return "\(url ?? "channel \(channelID)"): \(error.descriptionWithoutPaths)"
    }

    /// The statement that inserts new items and updates changed ones, one for the whole feed
    /// (nil when it lists none). Identity
    /// is the parser's item id within the channel, so a re-ingest never duplicates; unchanged
    /// rows are not rewritten; watch state is never touched; items missing from `items` are
    /// kept (a YouTube feed lists only the latest 15). `now` becomes the discovery time of new
    /// items, which get ids in feed order. Only items the channel lacks are inserted (an
    /// identity value is spent on each row an INSERT tries).
    private func merge(_ items: [Item], channelID: Int64) throws(LibraryError) -> PGStatement? {
        try requireChannel(channelID)
        // A feed listing an id twice means one item: the first listing wins.
        var seen = Set<String>(minimumCapacity: items.count)
        let rows = items.filter { !$0.id.isEmpty && seen.insert($0.id).inserted }
        guard !rows.isEmpty else { return nil }
        var parameters: [any PGBindable] = [channelID]
        for column in ItemColumn.all { parameters.append(rows.map(column.value)) }
        parameters.append(now)
        return PGStatement(sql: ItemColumn.merge, parameters: parameters)
    }

    /// The grown channels' item counts on their subscriptions (and so their followers' totals,
    /// and the `sync` changes their followers see): once per channel and batch, the followers'
    /// rows locked first in id order. Then the phones' actions that waited for these items.
    private func recount() throws(LibraryError) {
        guard !grown.isEmpty else { return }
        try db.query("""
            SELECT id FROM users WHERE id IN (SELECT user_id FROM subscriptions WHERE channel_id = ANY($1::bigint[]))
            ORDER BY id FOR NO KEY UPDATE
            """, [grown])
        try db.query("""
            UPDATE subscriptions s SET items = counted.items
            FROM (SELECT channel_id, count(*) AS items FROM items WHERE channel_id = ANY($1::bigint[]) GROUP BY channel_id) counted
            WHERE s.channel_id = ANY($1::bigint[]) AND s.channel_id = counted.channel_id AND s.items <> counted.items
            """, [grown])  // `s.channel_id = ANY` twice: without it the planner read every subscription for a batch's few
        try PostgresLibrary.applyPendingActions(channels: grown, db)
    }
}

/// Statements waiting to be sent together (`PGConnection.pipeline`), each with what its result is for.
private struct Pipelined<Key> {
    private var keys: [Key] = []
    private var statements: [PGStatement] = []

    mutating func add(_ key: Key, _ statement: PGStatement) {
        keys.append(key)
        statements.append(statement)
    }

    /// Runs them (none is no round trip) and empties the queue; each result with its key.
    mutating func run(_ db: PGConnection) throws(LibraryError) -> [(Key, PGResult)] {
        guard !statements.isEmpty else { return [] }
        defer { keys = []; statements = [] }
        return Array(zip(keys, try db.pipeline(statements)))
    }
}

/// A stored column of `items` a feed's item fills, its type, and its value in PostgreSQL's text
/// form. Values outside what the library allows (negative durations, sizes, views) are dropped
/// rather than failing the whole feed.
private struct ItemColumn: Sendable {
    let name: String
    let type: String
    let value: @Sendable (Item) -> String?

    init(_ name: String, _ type: String, _ value: @escaping @Sendable (Item) -> String?) {
        self.name = name; self.type = type; self.value = value
    }

    private static func number<N: BinaryInteger>(_ value: N?) -> String? { value.map { String($0) } }
    private static func nonNegative<N: BinaryInteger>(_ value: N?) -> String? { value.flatMap { $0 >= 0 ? String($0) : nil } }
    private static func flag(_ value: Bool?) -> String? { value.map { $0 ? "1" : "0" } }

    /// `item_id` first, then every column the merge writes, in `$2…` order.
    static let all: [ItemColumn] = [
        ItemColumn("item_id", "text") { $0.id },
        ItemColumn("guid", "text") { $0.guid },
        ItemColumn("title", "text") { $0.title },
        ItemColumn("url", "text") { $0.url },
        ItemColumn("published", "bigint") { number($0.published) },
        ItemColumn("updated", "bigint") { number($0.updated) },
        ItemColumn("duration", "bigint") { nonNegative($0.duration) },
        ItemColumn("enclosure_url", "text") { $0.enclosure?.url },
        ItemColumn("enclosure_type", "text") { $0.enclosure?.type },
        ItemColumn("enclosure_length", "bigint") { nonNegative($0.enclosure?.length) },
        ItemColumn("thumbnail", "text") { $0.thumbnail },
        ItemColumn("author", "text") { $0.author },
        ItemColumn("description", "text") { $0.description },
        ItemColumn("views", "bigint") { nonNegative($0.views) },
        ItemColumn("is_short", "bigint") { flag($0.isShort) },
        ItemColumn("episode", "bigint") { number($0.episode) },
        ItemColumn("season", "bigint") { number($0.season) },
        ItemColumn("chapters_url", "text") { $0.chaptersURL },
        ItemColumn("transcript_url", "text") { $0.transcriptURL },
        ItemColumn("explicit", "bigint") { flag($0.explicit) },
        ItemColumn("episode_type", "text") { $0.episodeType },
        ItemColumn("live_status", "text") { $0.liveStatus },
        // Lists are rare (Podcasting 2.0 feeds): encoded only when there is one.
        ItemColumn("persons", "text") { $0.persons.isEmpty ? nil : StoredJSON.encode($0.persons) },
        ItemColumn("funding", "text") { $0.funding.isEmpty ? nil : StoredJSON.encode($0.funding) },
        ItemColumn("notes_markup", "text") { $0.notesMarkup },
    ]

    /// One feed's items merged in one statement: `$1` the channel, `$2…` one array per column
    /// (unnested together, in feed order), the last parameter the discovery time. Every CTE
    /// reads the statement's one snapshot, so `changed` updates only rows the channel had and
    /// `added` inserts only rows it lacked, in feed order; an update whose every column is as
    /// stored writes nothing. Answers how many rows each wrote.
    static let merge: String = {
        let names = all.map(\.name)
        let written = names.dropFirst()
        let arrays = all.enumerated().map { "$\($0.offset + 2)::\($0.element.type)[]" }
        let discovered = "$\(all.count + 2)::bigint"
        return """
            WITH incoming AS (
                SELECT * FROM unnest(\(arrays.joined(separator: ", "))) WITH ORDINALITY AS t(\(names.joined(separator: ", ")), n)
            ), changed AS (
                UPDATE items i SET \(written.map { "\($0) = t.\($0)" }.joined(separator: ", "))
                FROM incoming t
                WHERE i.channel_id = $1::bigint AND i.item_id = t.item_id
                    AND (\(written.map { "i.\($0)" }.joined(separator: ", "))) IS DISTINCT FROM (\(written.map { "t.\($0)" }.joined(separator: ", ")))
                RETURNING i.id
            ), added AS (
                INSERT INTO items (channel_id, \(names.joined(separator: ", ")), discovered_at)
                SELECT $1::bigint, \(names.map { "t.\($0)" }.joined(separator: ", ")), \(discovered) FROM incoming t
                WHERE NOT EXISTS (SELECT 1 FROM items i WHERE i.channel_id = $1::bigint AND i.item_id = t.item_id)
                ORDER BY t.n
                ON CONFLICT (channel_id, item_id) DO NOTHING
                RETURNING id
            )
            SELECT (SELECT count(*) FROM added) AS new, (SELECT count(*) FROM changed) AS updated
            """
    }()
}
