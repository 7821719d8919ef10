import FeedModel
import GRDB
import LibraryStore

extension SQLiteLibrary {
    public func apply(_ polls: [Poll], now: Int64) async -> [Result<PollApplied, LibraryError>] {
        await apply(polls, claimant: nil, now: now)
    }

    /// `SyncStore.apply`, and `PollStore.apply` with the claimant whose claims it releases.
    func apply(_ polls: [Poll], claimant: String?, now: Int64) async -> [Result<PollApplied, LibraryError>] {
        guard !polls.isEmpty else { return [] }
        let user = user
        // One transaction for the batch: much faster than one per feed, because each commit
        // rewrites every index page its items touched.
        do {
            let applied = try await write { db in
                let statements = IngestStatements.Lazy()
                return try polls.map { try Self.apply($0, user: user, claimant: claimant, now: now, statements: statements, db) }
            }
            return applied.map { .success($0) }
        } catch {}
        // Something in the batch failed: each poll on its own, so one bad feed cannot sink the others.
        var results: [Result<PollApplied, LibraryError>] = []
        for poll in polls {
            do {
                results.append(.success(try await write { db in
                    try Self.apply(poll, user: user, claimant: claimant, now: now, statements: IngestStatements.Lazy(), db)
                }))
            } catch {
                if case .channel(let id) = poll.subject {
                    // Its channel learns why, and backs off as after a failed fetch.
                    _ = try? await write { db in
                        try Self.recordFailure(db, channelID: id, message: Self.failureMessage(error, channelID: id, db),
                                               retryAfter: nil, pollInterval: poll.pollInterval, claimant: claimant, now: now)
                    }
                }
                results.append(.failure(error))
            }
        }
        return results
    }

    /// Inserts new items and updates changed ones under `channelID`, without any bookkeeping: the
    /// store's merge alone (the store's tests and bench/modes' library generator use it). See `upsert`.
    package func ingest(items: [Item], channelID: Int64, now: Int64) async throws(LibraryError) -> IngestResult {
        try await write { db in
            try Self.upsert(items, channelID: channelID, now: now, statements: try IngestStatements(db), db: db)
        }
    }

    /// One poll inside a write transaction; a subscription is `user`'s; `claimant`'s claim on
    /// the channel is released.
    private static func apply(_ poll: Poll, user: UserID, claimant: String?, now: Int64, statements: IngestStatements.Lazy,
                              _ db: Database) throws -> PollApplied {
        let channelID: Int64
        switch poll.subject {
        case .channel(let id): channelID = id
        case .subscription(let new): channelID = try subscribe(new, user: user, now: now, db)
        }
        var ingest = IngestResult(new: 0, updated: 0)
        switch poll.outcome {
        case .notFetched:
            try requireChannel(channelID, db)
        case .unchanged(let validators):
            try recordSuccess(db, channelID: channelID, validators, pollInterval: poll.pollInterval, claimant: claimant, now: now)
        case .changed(let validators, let feed):
            ingest = try upsert(feed.items, channelID: channelID, now: now, statements: try statements.get(db), db: db)
            try db.cachedStatement(sql: """
                UPDATE channels SET name = coalesce(?1, name), image = coalesce(?2, image)
                WHERE id = ?3 AND (name IS NOT coalesce(?1, name) OR image IS NOT coalesce(?2, image))
                """).execute(arguments: [ChannelName.fromFeed(title: feed.title), feed.image, channelID])
            try recordDetails(feed, channelID: channelID, db)
            try recordSuccess(db, channelID: channelID, validators, pollInterval: poll.pollInterval, claimant: claimant, now: now)
        case .failed(let message, let retryAfter):
            try recordFailure(db, channelID: channelID, message: message, retryAfter: retryAfter,
                              pollInterval: poll.pollInterval, claimant: claimant, now: now)
        }
        return PollApplied(channelID: channelID, ingest: ingest)
    }

    /// Creates the channel, or, when its feed URL is already in the library (subscribed by this
    /// user or another: channels are shared), updates its platform, source URL, name (unless
    /// empty) and image (when given); then subscribes `user` to it (once). Returns its id.
    private static func subscribe(_ new: NewChannel, user: UserID, now: Int64, _ db: Database) throws -> Int64 {
        guard !new.feedURL.isEmpty else { throw LibraryError.invalid("a channel needs a feed URL") }
        // Cached: an OPML import subscribes many in one batch, and a statement on a table with
        // triggers (v15's counts, v18's reach, v19's change log) costs more to prepare than to run.
        try db.cachedStatement(sql: """
            INSERT INTO channels (platform, source_url, feed_url, name, image, added_at)
            VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (feed_url) DO UPDATE SET
                platform = excluded.platform, source_url = excluded.source_url,
                name = CASE WHEN excluded.name <> '' THEN excluded.name ELSE name END,
                image = coalesce(excluded.image, image)
            """).execute(arguments: [new.platform.rawValue, new.sourceURL.isEmpty ? new.feedURL : new.sourceURL, new.feedURL,
                                     new.name, new.image, now])
        guard let id = try Int64.fetchOne(db.cachedStatement(sql: "SELECT id FROM channels WHERE feed_url = ?"),
                                          arguments: [new.feedURL]) else {
            throw UnexpectedResult("channel \(new.feedURL) vanished after insert")
        }
        try db.cachedStatement(sql: """
            INSERT INTO subscriptions (user_id, channel_id, added_at, private_addresses) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING
            """).execute(arguments: [user.rawValue, id, now, new.reach.storedPrivateAddresses])
        return id
    }

    /// Releases the claim of the claimant bound to its two parameters (none when NULL): a poll
    /// stored after its lease expired leaves the claim of whoever polls the channel now.
    private static let releasing = """
        claimed_until = CASE WHEN claimed_by = ? THEN NULL ELSE claimed_until END,
        claimed_by = CASE WHEN claimed_by = ? THEN NULL ELSE claimed_by END
        """

    /// A successful poll (changed or not): stores the validators, clears the error state and
    /// schedules the next poll. A nil validator keeps the stored one (a 304 repeats none). A
    /// permanent redirect moves the feed URL, unless another channel already polls the new one.
    private static func recordSuccess(_ db: Database, channelID: Int64, _ v: Validators, pollInterval: Int64, claimant: String?,
                                      now: Int64) throws {
        if let moved = v.movedTo, !moved.isEmpty,
           try Int64.fetchOne(db, sql: "SELECT id FROM channels WHERE feed_url = ? AND id <> ?", arguments: [moved, channelID]) == nil {
            try db.execute(sql: "UPDATE channels SET feed_url = ? WHERE id = ?", arguments: [moved, channelID])
        }
        // Cached: a sync's batch runs it once per channel.
        try db.cachedStatement(sql: """
            UPDATE channels SET last_synced = ?, last_error = NULL, consecutive_errors = 0, next_poll = ?, \(releasing),
                etag = coalesce(?, etag), last_modified = coalesce(?, last_modified),
                body_hash = coalesce(?, body_hash)
            WHERE id = ?
            """).execute(arguments: [now, now + max(pollInterval, 1), claimant, claimant, v.etag, v.lastModified, v.bodyHash, channelID])
        if db.changesCount == 0 { throw LibraryError.noChannel(channelID) }
    }

    /// What a newly parsed body says about its channel beyond its items: the parse's warnings
    /// (replacing the last body's: a feed that was mended loses them), its self URL, next page
    /// and funding. Written only when something differs.
    private static func recordDetails(_ feed: Feed, channelID: Int64, _ db: Database) throws {
        try db.cachedStatement(sql: """
            UPDATE channels SET warnings = ?1, self_url = ?2, next_page = ?3, funding = ?4
            WHERE id = ?5 AND (warnings IS NOT ?1 OR self_url IS NOT ?2 OR next_page IS NOT ?3 OR funding IS NOT ?4)
            """).execute(arguments: [StoredJSON.encode(feed.warnings), feed.selfURL, feed.nextPage,
                                     StoredJSON.encode(feed.funding), channelID])
    }

    /// A failed poll: records the one-line error, counts it, and backs off (`SyncPolicy.backoff`).
    /// The channel's items are untouched.
    private static func recordFailure(_ db: Database, channelID: Int64, message: String, retryAfter: Int64?,
                                      pollInterval: Int64, claimant: String?, now: Int64) throws {
        guard let errors = try Int.fetchOne(db, sql: "SELECT consecutive_errors FROM channels WHERE id = ?",
                                            arguments: [channelID]) else { throw LibraryError.noChannel(channelID) }
        let count = errors + 1
        let next = now + SyncPolicy.backoff(consecutiveErrors: count, pollInterval: pollInterval, retryAfter: retryAfter)
        try db.execute(sql: "UPDATE channels SET last_error = ?, consecutive_errors = ?, next_poll = ?, \(releasing) WHERE id = ?",
                       arguments: [message, count, next, claimant, claimant, channelID])
    }

    /// `https://x/feed.xml: <why>`, as a failed fetch reads.
    private static func failureMessage(_ error: LibraryError, channelID: Int64, _ db: Database) throws -> String {
        let url = try String.fetchOne(db, sql: "SELECT feed_url FROM channels WHERE id = ?", arguments: [channelID])
        // Shown to the channel's followers, over HTTP too: without the library's path.
        return "\(url ?? "channel \(channelID)"): \(error.descriptionWithoutPaths)"
    }

    private static func requireChannel(_ id: Int64, _ db: Database) throws {
        guard try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM channels WHERE id = ?"), arguments: [id]) != nil else {
            throw LibraryError.noChannel(id)
        }
    }

    /// Inserts new items and updates changed ones. Identity is the parser's item id within the
    /// channel, so a re-ingest never duplicates; unchanged rows are not rewritten; watch state is
    /// never touched; items missing from `items` are kept (a YouTube feed lists only the latest
    /// 15). `now` becomes the discovery time of new items.
    private static func upsert(_ items: [Item], channelID: Int64, now: Int64, statements: IngestStatements, db: Database) throws -> IngestResult {
        try requireChannel(channelID, db)
        let count = try db.cachedStatement(sql: "SELECT count(*) FROM items WHERE channel_id = ?")
        let before = try Int.fetchOne(count, arguments: [channelID]) ?? 0
        // A feed listing an id twice means one item: the first listing wins.
        var seen = Set<String>(minimumCapacity: items.count)
        var row = RowText()
        for index in items.indices where !items[index].id.isEmpty && seen.insert(items[index].id).inserted {
            try row.stage(items[index], channelID: channelID, now: now, with: statements.stage)
        }
        let written = try statements.merge.execute()
        _ = try statements.clear.execute()
        let after = try Int.fetchOne(count, arguments: [channelID]) ?? 0
        if after != before {
            // The feed's item count on its subscriptions (and so their users' totals): once per
            // feed, not per item (v17).
            try db.cachedStatement(sql: "UPDATE subscriptions SET items = ? WHERE channel_id = ?").execute(arguments: [after, channelID])
        }
        if after > before { try applyPendingActions(channel: channelID, db) }
        return IngestResult(new: after - before, updated: written - (after - before))
    }
}

/// A feed's items go into the library in two steps: each row into an in-memory staging table
/// (no indexes, no constraints: cheap), then all of them into `items` with one INSERT … SELECT
/// upsert. One statement per feed instead of one per item: SQLite opens the table's and its
/// five indexes' cursors once, not per row (callgrind: −24 % instructions against a prepared
/// single-row upsert per item; ~7 % faster in wall time here). The staging table is TEMP (per connection, `temp_store = MEMORY`) and
/// emptied after each feed; it is part of the write transaction, so a failure leaves nothing.
private struct IngestStatements {
    /// Prepared on the first changed feed of a transaction (a batch of 304s needs none).
    final class Lazy {
        private var made: IngestStatements?
        func get(_ db: Database) throws -> IngestStatements {
            if let made { return made }
            let new = try IngestStatements(db)
            made = new
            return new
        }
    }

    let stage: RawStatement
    let merge: RawStatement
    let clear: RawStatement

    /// The stored columns an item maps to, in `RowText.stage`'s order after channel_id and item_id.
    private static let itemColumns = [
        "guid", "title", "url", "published", "updated", "duration", "enclosure_url", "enclosure_type",
        "enclosure_length", "thumbnail", "author", "description", "views", "is_short", "episode", "season",
        "chapters_url", "transcript_url", "explicit", "episode_type", "live_status", "persons", "funding", "notes_markup",
    ]
    private static let columns = "channel_id, item_id, \(itemColumns.joined(separator: ", ")), discovered_at"

    init(_ db: Database) throws {
        try db.execute(sql: "CREATE TEMP TABLE IF NOT EXISTS ingest_staging (\(Self.columns))")
        stage = try RawStatement(cached: db, sql: """
            INSERT INTO temp.ingest_staging (\(Self.columns)) VALUES (\(Array(repeating: "?", count: Self.itemColumns.count + 3).joined(separator: ", ")))
            """)
        // `WHERE true` keeps SQLite from reading ON CONFLICT as a join constraint (SQLite's
        // advice for upserts from a SELECT). In staging order, so items get ids in feed order.
        // The DO UPDATE's WHERE makes an unchanged re-ingest a read, not a write.
        merge = try RawStatement(cached: db, sql: """
            INSERT INTO items (\(Self.columns))
            SELECT \(Self.columns) FROM temp.ingest_staging WHERE true ORDER BY rowid
            ON CONFLICT (channel_id, item_id) DO UPDATE SET
                \(Self.itemColumns.map { "\($0) = excluded.\($0)" }.joined(separator: ", "))
            WHERE \(Self.itemColumns.map { "items.\($0) IS NOT excluded.\($0)" }.joined(separator: " OR "))
            """)
        clear = try RawStatement(cached: db, sql: "DELETE FROM temp.ingest_staging")
    }
}

/// One row's text columns gathered in one reused byte buffer and bound without copies: the hot
/// loop of a big ingest otherwise spends more in per-string allocations than SQLite in its B-trees.
private struct RowText {
    private var bytes: [UInt8] = []
    private var spans: [(parameter: Int32, start: Int, count: Int)] = []

    init() {
        bytes.reserveCapacity(16 * 1024)
        spans.reserveCapacity(16)
    }

    /// Binds `item` to the staging insert's placeholders and runs it.
    /// Values outside what the schema allows (negative durations, sizes, views) are dropped
    /// rather than failing the whole feed.
    mutating func stage(_ item: borrowing Item, channelID: Int64, now: Int64, with s: RawStatement) throws {
        bytes.removeAll(keepingCapacity: true)
        spans.removeAll(keepingCapacity: true)
        func nonNegative(_ v: Int64?) -> Int64? { v.flatMap { $0 >= 0 ? $0 : nil } }
        s.bind(1, channelID)
        text(2, item.id, s); text(3, item.guid, s); text(4, item.title, s); text(5, item.url, s)
        s.bind(6, item.published); s.bind(7, item.updated); s.bind(8, nonNegative(item.duration.map(Int64.init)))
        text(9, item.enclosure?.url, s); text(10, item.enclosure?.type, s); s.bind(11, nonNegative(item.enclosure?.length))
        text(12, item.thumbnail, s); text(13, item.author, s); text(14, item.description, s)
        s.bind(15, nonNegative(item.views)); s.bind(16, Int64(item.isShort ? 1 : 0))
        s.bind(17, item.episode.map(Int64.init)); s.bind(18, item.season.map(Int64.init))
        text(19, item.chaptersURL, s); text(20, item.transcriptURL, s)
        s.bind(21, item.explicit.map { $0 ? 1 : 0 }); text(22, item.episodeType, s); text(23, item.liveStatus, s)
        // Lists are rare (Podcasting 2.0 feeds): encoded only when there is one.
        text(24, item.persons.isEmpty ? nil : StoredJSON.encode(item.persons), s)
        text(25, item.funding.isEmpty ? nil : StoredJSON.encode(item.funding), s)
        text(26, item.notesMarkup, s)
        s.bind(27, now)
        // The buffer is complete only now (appending may have moved it): bind into it, then step
        // while it is pinned.
        try bytes.withUnsafeBufferPointer { buffer in
            for span in spans {
                s.bindStatic(span.parameter, UnsafeBufferPointer(rebasing: buffer[span.start ..< span.start + span.count]))
            }
            _ = try s.execute()
        }
    }

    private mutating func text(_ parameter: Int32, _ value: String?, _ s: RawStatement) {
        guard let value else { return s.bindNull(parameter) }
        let start = bytes.count
        value.withBytes { bytes.append(contentsOf: $0) }
        spans.append((parameter, start, bytes.count - start))
    }
}
