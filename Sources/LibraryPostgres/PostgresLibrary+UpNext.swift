import FeedModel
import LibraryStore

// The up-next queue, as the SQLite library's (SQLiteLibrary+UpNext.swift).
//
// Concurrency: every write reads the whole queue, decides, and writes positions 1…count, so two
// writers of one user's queue must take turns, or the second would number from a queue that is
// no longer there (two entries at one place, a move undone). A user's queue has no row of its
// own to lock (an empty one has no rows at all), so each write first takes a transaction-scoped
// advisory lock named after the user (`UserLock.upNext`): held until COMMIT/ROLLBACK, taken before
// any row lock (so queue writers cannot deadlock among themselves), and each statement after it
// sees what the previous holder committed (READ COMMITTED). Other users' queues never wait.
extension PostgresLibrary {
    public func upNext() async throws(LibraryError) -> [UpNextEntry] {
        let user = user
        return try await read { db throws(LibraryError) in try Self.queue(user: user, db) }
    }

    @discardableResult
    public func appendToUpNext(_ entries: [(target: MediaTarget, title: String)], now: Int64) async throws(LibraryError) -> UpNextChange {
        let entries = entries.map { UpNextInsert(target: $0.target, title: $0.title) }
        let user = user
        return try await write { db throws(LibraryError) in try Self.insert(entries, atFront: false, now: now, user: user, db) }
    }

    @discardableResult
    public func insertNextInUpNext(_ entries: [(target: MediaTarget, title: String)], now: Int64) async throws(LibraryError) -> UpNextChange {
        let entries = entries.map { UpNextInsert(target: $0.target, title: $0.title) }
        let user = user
        return try await write { db throws(LibraryError) in try Self.insert(entries, atFront: true, now: now, user: user, db) }
    }

    @discardableResult
    public func removeFromUpNext(at position: Int) async throws(LibraryError) -> UpNextEntry {
        let user = user
        return try await write { db throws(LibraryError) in
            var queue = try Self.lockedQueue(user: user, db)
            try UpNextRule.checkPosition(position, count: queue.count)
            let removed = queue.remove(at: position - 1)
            try db.query("DELETE FROM up_next WHERE id = $1", [removed.id])
            try Self.renumber(queue, db)
            return removed
        }
    }

    public func moveInUpNext(from: Int, to: Int) async throws(LibraryError) {
        let user = user
        try await write { db throws(LibraryError) in
            var queue = try Self.lockedQueue(user: user, db)
            try UpNextRule.checkPosition(from, count: queue.count)
            try UpNextRule.checkPosition(to, count: queue.count)
            queue.insert(queue.remove(at: from - 1), at: to - 1)
            try Self.renumber(queue, db)
        }
    }

    public func popUpNext() async throws(LibraryError) -> UpNextEntry? {
        let user = user
        return try await write { db throws(LibraryError) -> UpNextEntry? in
            var queue = try Self.lockedQueue(user: user, db)
            guard !queue.isEmpty else { return nil }
            let first = queue.removeFirst()
            try db.query("DELETE FROM up_next WHERE id = $1", [first.id])
            try Self.renumber(queue, db)
            return first
        }
    }

    @discardableResult
    public func clearUpNext() async throws(LibraryError) -> Int {
        let user = user
        return try await write { db throws(LibraryError) in
            try UserLock.upNext.take(for: user, db)
            return try db.query("DELETE FROM up_next WHERE user_id = $1", [user.rawValue]).affected
        }
    }

    /// `user`'s queue in order, numbered 1…count (positions left with gaps by removed items close up here).
    private static func queue(user: UserID, _ db: PGConnection) throws(LibraryError) -> [UpNextEntry] {
        var entries: [UpNextEntry] = []
        for row in try db.query("SELECT id, item, url, file, title FROM up_next WHERE user_id = $1 ORDER BY position, id",
                                [user.rawValue]).rows {
            guard let target = MediaTarget(item: try row.get("item"), url: try row.get("url"), file: try row.get("file")) else {
                continue  // the schema's CHECK makes this impossible
            }
            entries.append(UpNextEntry(id: try row.get("id"), position: entries.count + 1, target: target, title: try row.get("title")))
        }
        return entries
    }

    private static func lockedQueue(user: UserID, _ db: PGConnection) throws(LibraryError) -> [UpNextEntry] {
        try UserLock.upNext.take(for: user, db)
        return try queue(user: user, db)
    }

    /// `UpNextChange`'s rule: a target is queued at most once. New targets get rows; one already
    /// queued (or named twice in `entries`) keeps its row, moved to the front with the others
    /// when `atFront`, else left where it is.
    private static func insert(_ entries: [UpNextInsert], atFront: Bool, now: Int64, user: UserID, _ db: PGConnection) throws(LibraryError) -> UpNextChange {
        try UserLock.upNext.take(for: user, db)
        try requireItems(entries.compactMap(\.target.itemID), user: user, db)
        try UpNextRule.checkTargets(entries.map(\.target))
        let queue = try queue(user: user, db)
        let waiting = Dictionary(queue.map { ($0.target, $0) }, uniquingKeysWith: { first, _ in first })
        // In the order given, each target once: those queued already, and those to insert.
        var named: [Named] = [], new: [UpNextInsert] = []
        var seen: Set<MediaTarget> = []
        for entry in entries where seen.insert(entry.target).inserted {
            if let queued = waiting[entry.target] {
                named.append(.queued(queued))
            } else {
                named.append(.new(new.count))
                new.append(entry)
            }
        }
        // New rows go after the queue, in the order given: their place tells which id is whose.
        var ids: [Int64: Int64] = [:]   // place after the queue (1…) -> id
        if !new.isEmpty {
            let rows = try db.query("""
                INSERT INTO up_next (user_id, position, item, url, file, title, added_at)
                SELECT $1, $2 + n, item, url, file, title, $3
                FROM unnest($4::bigint[], $5::text[], $6::text[], $7::text[]) WITH ORDINALITY AS new(item, url, file, title, n)
                ORDER BY n
                RETURNING id, position
                """, [user.rawValue, Int64(queue.count), now, new.map(\.target.columns.item),
                      new.map(\.target.columns.url), new.map(\.target.columns.file),
                      new.map(\.title)]).rows
            for row in rows {
                let position: Int64 = try row.get("position")
                ids[position - Int64(queue.count)] = try row.get("id")
            }
        }
        var added: [Int64] = [], again: Set<Int64> = [], namedIDs: [Int64] = []
        for name in named {
            switch name {
            case .queued(let entry):
                again.insert(entry.id)
                namedIDs.append(entry.id)
            case .new(let index):
                guard let id = ids[Int64(index + 1)] else { throw PGRow.unexpected("INSERT … RETURNING gave no row for queue entry \(index + 1)") }
                added.append(id)
                namedIDs.append(id)
            }
        }
        let order = atFront ? namedIDs + queue.map(\.id).filter { !again.contains($0) }
                            : queue.map(\.id) + added
        try renumber(ids: order, db)
        let addedSet = Set(added)
        let stored = try Self.queue(user: user, db)
        return UpNextChange(added: stored.filter { addedSet.contains($0.id) }, alreadyQueued: stored.filter { again.contains($0.id) })
    }

    /// Writes positions 1…count in the order of `queue`.
    private static func renumber(_ queue: [UpNextEntry], _ db: PGConnection) throws(LibraryError) {
        try renumber(ids: queue.map(\.id), db)
    }

    /// Writes positions 1…count in the order of `ids`, one statement (the queue's positions are
    /// not UNIQUE: no order of updates can collide). Rows already in place are left alone.
    private static func renumber(ids: [Int64], _ db: PGConnection) throws(LibraryError) {
        guard !ids.isEmpty else { return }
        try db.query("""
            UPDATE up_next u SET position = new.n FROM unnest($1::bigint[]) WITH ORDINALITY AS new(id, n)
            WHERE u.id = new.id AND u.position <> new.n
            """, [ids])
    }

}

/// A queue entry on its way in (tuples are not Sendable-checked into the write closure).
private struct UpNextInsert: Sendable {
    var target: MediaTarget
    var title: String
}

/// An entry a request named: one already queued, or the n-th (0-based) of those inserted.
private enum Named {
    case queued(UpNextEntry)
    case new(Int)
}
