import FeedModel
import GRDB
import LibraryStore

extension SQLiteLibrary {
    public func upNext() async throws(LibraryError) -> [UpNextEntry] {
        let user = user
        return try await read { db in try Self.queue(db, user: user) }
    }

    @discardableResult
    public func appendToUpNext(_ entries: [(target: MediaTarget, title: String)], now: Int64) async throws(LibraryError) -> UpNextChange {
        let entries = entries.map { UpNextInsert(target: $0.target, title: $0.title) }
        let user = user
        return try await write { db in try Self.insert(entries, atFront: false, now: now, user: user, db) }
    }

    @discardableResult
    public func insertNextInUpNext(_ entries: [(target: MediaTarget, title: String)], now: Int64) async throws(LibraryError) -> UpNextChange {
        let entries = entries.map { UpNextInsert(target: $0.target, title: $0.title) }
        let user = user
        return try await write { db in try Self.insert(entries, atFront: true, now: now, user: user, db) }
    }

    @discardableResult
    public func removeFromUpNext(at position: Int) async throws(LibraryError) -> UpNextEntry {
        let user = user
        return try await write { db in
            var queue = try Self.queue(db, user: user)
            try UpNextRule.checkPosition(position, count: queue.count)
            let removed = queue.remove(at: position - 1)
            try db.execute(sql: "DELETE FROM up_next WHERE id = ?", arguments: [removed.id])
            try Self.renumber(queue, db)
            return removed
        }
    }

    public func moveInUpNext(from: Int, to: Int) async throws(LibraryError) {
        let user = user
        return try await write { db in
            var queue = try Self.queue(db, user: user)
            try UpNextRule.checkPosition(from, count: queue.count)
            try UpNextRule.checkPosition(to, count: queue.count)
            queue.insert(queue.remove(at: from - 1), at: to - 1)
            try Self.renumber(queue, db)
        }
    }

    public func popUpNext() async throws(LibraryError) -> UpNextEntry? {
        let user = user
        return try await write { db in
            var queue = try Self.queue(db, user: user)
            guard !queue.isEmpty else { return nil }
            let first = queue.removeFirst()
            try db.execute(sql: "DELETE FROM up_next WHERE id = ?", arguments: [first.id])
            try Self.renumber(queue, db)
            return first
        }
    }

    @discardableResult
    public func clearUpNext() async throws(LibraryError) -> Int {
        let user = user
        return try await write { db in
            try db.execute(sql: "DELETE FROM up_next WHERE user_id = ?", arguments: [user.rawValue])
            return db.changesCount
        }
    }

    /// `user`'s queue in order, numbered 1…count (positions left with gaps by removed items close up here).
    private static func queue(_ db: Database, user: UserID) throws -> [UpNextEntry] {
        try Row.fetchAll(db, sql: "SELECT id, item, url, file, title FROM up_next WHERE user_id = ? ORDER BY position, id",
                         arguments: [user.rawValue])
            .enumerated().compactMap { index, row in
                guard let target = MediaTarget(item: row["item"], url: row["url"], file: row["file"])
                else { return nil }  // the schema's CHECK makes this impossible
                return UpNextEntry(id: row["id"], position: index + 1, target: target, title: row["title"])
            }
    }

    /// `UpNextChange`'s rule: a target is queued at most once. New targets get rows; one already
    /// queued (or named twice in `entries`) keeps its row, moved to the front with the others
    /// when `atFront`, else left where it is.
    private static func insert(_ entries: [UpNextInsert], atFront: Bool, now: Int64, user: UserID, _ db: Database) throws -> UpNextChange {
        try requireItems(entries.compactMap(\.target.itemID), user: user, db)
        try UpNextRule.checkTargets(entries.map(\.target))
        let queue = try queue(db, user: user)
        let waiting = Dictionary(queue.map { ($0.target, $0) }, uniquingKeysWith: { first, _ in first })
        let insert = try db.cachedStatement(sql: """
            INSERT INTO up_next (user_id, position, item, url, file, title, added_at) VALUES (?, ?, ?, ?, ?, ?, ?)
            """)
        var named: [UpNextEntry] = []   // in the order given, each target once
        var seen: Set<MediaTarget> = [], added: Set<Int64> = [], again: Set<Int64> = []
        for entry in entries where seen.insert(entry.target).inserted {
            if let queued = waiting[entry.target] {
                named.append(queued)
                again.insert(queued.id)
                continue
            }
            let columns = entry.target.columns
            try insert.execute(arguments: [user.rawValue, queue.count + added.count + 1, columns.item, columns.url, columns.file, entry.title, now])
            named.append(UpNextEntry(id: db.lastInsertedRowID, position: 0, target: entry.target, title: entry.title))
            added.insert(db.lastInsertedRowID)
        }
        let order = atFront ? named + queue.filter { !again.contains($0.id) }
                            : queue + named.filter { added.contains($0.id) }
        try renumber(order, db)
        let stored = try Self.queue(db, user: user)
        return UpNextChange(added: stored.filter { added.contains($0.id) }, alreadyQueued: stored.filter { again.contains($0.id) })
    }

    /// Writes positions 1…count in the order of `queue`.
    private static func renumber(_ queue: [UpNextEntry], _ db: Database) throws {
        let update = try db.cachedStatement(sql: "UPDATE up_next SET position = ? WHERE id = ? AND position IS NOT ?")
        for (index, entry) in queue.enumerated() {
            try update.execute(arguments: [index + 1, entry.id, index + 1])
        }
    }
}

/// A queue entry on its way in (tuples are not Sendable-checked into the write closure).
private struct UpNextInsert: Sendable {
    var target: MediaTarget
    var title: String
}
