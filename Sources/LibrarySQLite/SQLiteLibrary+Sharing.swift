import FeedModel
import GRDB
import LibraryStore

/// Published collections and the collections a user follows (`SharingStore`; the schema's
/// rules: Schema+Sharing.swift).
extension SQLiteLibrary: SharingStore {
    public var sharedCollections: any SharedCollectionStore { SQLiteSharedCollections(library: self) }

    public func publishCollection(id: Int64, token: ShareToken, now: Int64) async throws(LibraryError) -> PublishedLink {
        let user = user
        return try await write { db in
            try Self.requireOwnCollection(id, user: user, db)
            if let live = try Self.liveLink(collection: id, db) { return live }
            try db.execute(sql: "INSERT INTO published_collections (token, collection, published_at) VALUES (?, ?, ?)",
                           arguments: [token.text, id, now])
            return PublishedLink(token: token, collectionID: id, publishedAt: now)
        }
    }

    public func unpublishCollection(id: Int64, now: Int64) async throws(LibraryError) {
        let user = user
        try await write { db in
            try Self.requireOwnCollection(id, user: user, db)
            try db.execute(sql: "UPDATE published_collections SET withdrawn_at = ? WHERE collection = ? AND withdrawn_at IS NULL",
                           arguments: [now, id])
            if db.changesCount == 0 { throw LibraryError.notPublished(id) }
        }
    }

    public func publishedLink(collectionID id: Int64) async throws(LibraryError) -> PublishedLink? {
        let user = user
        return try await read { db in
            try Self.requireOwnCollection(id, user: user, db)
            return try Self.liveLink(collection: id, db)
        }
    }

    public func follow(token: ShareToken, url: String, now: Int64) async throws(LibraryError) -> FollowedCollection {
        let user = user
        return try await write { db in
            guard let link = try Row.fetchOne(db, sql: """
                SELECT p.id, p.withdrawn_at, c.user_id, c.name, c.description, c.cover_url, u.name AS owner
                FROM published_collections p LEFT JOIN collections c ON c.id = p.collection LEFT JOIN users u ON u.id = c.user_id
                WHERE p.token = ?
                """, arguments: [token.text]) else { throw LibraryError.noSharedCollection }
            if (link["withdrawn_at"] as Int64?) != nil { throw LibraryError.withdrawnCollection }
            if (link["user_id"] as Int64?) == user.rawValue {
                throw LibraryError.invalid("that collection is your own: it is among your collections already")
            }
            let linkID: Int64 = link["id"]
            if let existing = try Int64.fetchOne(db, sql: "SELECT id FROM followed_collections WHERE user_id = ? AND link = ?",
                                                 arguments: [user.rawValue, linkID]) {
                throw LibraryError.alreadyFollowing(existing)
            }
            try db.execute(sql: """
                INSERT INTO followed_collections (user_id, url, link, name, description, owner_name, cover_url, followed_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [user.rawValue, url, linkID, link["name"] as String, link["description"] as String?,
                                 link["owner"] as String, link["cover_url"] as String?, now])
            return try Self.requireFollowed(db.lastInsertedRowID, user: user, db)
        }
    }

    public func follow(remote: NewRemoteFollow, now: Int64) async throws(LibraryError) -> FollowedCollection {
        let user = user
        return try await write { db in
            if let existing = try Int64.fetchOne(db, sql: "SELECT id FROM followed_collections WHERE user_id = ? AND source_url = ?",
                                                 arguments: [user.rawValue, remote.sourceURL]) {
                throw LibraryError.alreadyFollowing(existing)
            }
            let collection = remote.collection
            try db.execute(sql: """
                INSERT INTO followed_collections (user_id, url, source_url, private_addresses, name, description, owner_name, cover_url,
                                                  items, followed_at, refreshed_at, next_refresh)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [user.rawValue, remote.url, remote.sourceURL, remote.reach == .anyAddress ? 1 : 0, collection.name,
                                 collection.description, collection.ownerName, collection.coverURL, StoredJSON.encode(collection.items),
                                 now, now, now + SharingRule.refreshInterval])
            return try Self.requireFollowed(db.lastInsertedRowID, user: user, db)
        }
    }

    public func followedCollections() async throws(LibraryError) -> [FollowedCollection] {
        let user = user
        return try await read { db in
            try Row.fetchAll(db, sql: "\(Self.followedSelection) WHERE f.user_id = ? ORDER BY f.name COLLATE NOCASE, f.id",
                             arguments: [user.rawValue]).map(Self.followed(row:))
        }
    }

    public func followedCollection(id: Int64) async throws(LibraryError) -> (collection: FollowedCollection, items: [SharedItem]) {
        let user = user
        return try await read { db in
            let followed = try Self.requireFollowed(id, user: user, db)
            if followed.isWithdrawn { return (followed, []) }
            if followed.isRemote {
                let text = try String.fetchOne(db, sql: "SELECT items FROM followed_collections WHERE id = ?", arguments: [id])
                return (followed, StoredJSON.decode(SharedItem.self, text))
            }
            let collection = try Int64.fetchOne(db, sql: """
                SELECT p.collection FROM followed_collections f JOIN published_collections p ON p.id = f.link WHERE f.id = ?
                """, arguments: [id])
            return (followed, try collection.map { try Self.sharedItems(collection: $0, db) } ?? [])
        }
    }

    public func unfollow(id: Int64) async throws(LibraryError) {
        let user = user
        try await write { db in
            try db.execute(sql: "DELETE FROM followed_collections WHERE id = ? AND user_id = ?", arguments: [id, user.rawValue])
            if db.changesCount == 0 { throw LibraryError.noFollowedCollection(id) }
        }
    }

    public func remoteFollows() async throws(LibraryError) -> [RemoteFollow] {
        let user = user
        return try await read { db in
            try Row.fetchAll(db, sql: """
                SELECT id, source_url, private_addresses FROM followed_collections
                WHERE user_id = ? AND source_url IS NOT NULL AND withdrawn_at IS NULL ORDER BY id
                """, arguments: [user.rawValue]).map(Self.remoteFollow(row:))
        }
    }

    // MARK: rows

    /// A followed collection with its items' count now (a local one's live collection's).
    static let followedSelection = """
        SELECT f.*, CASE WHEN f.withdrawn_at IS NOT NULL THEN 0
                         WHEN f.link IS NULL THEN coalesce(json_array_length(f.items), 0)
                         ELSE (SELECT count(*) FROM collection_items ci JOIN published_collections p ON p.collection = ci.collection
                               WHERE p.id = f.link) END AS item_count
        FROM followed_collections f
        """

    static func followed(row: Row) -> FollowedCollection {
        FollowedCollection(id: row["id"], url: row["url"], sourceURL: row["source_url"], name: row["name"], description: row["description"],
                           ownerName: row["owner_name"], coverURL: row["cover_url"], itemCount: row["item_count"],
                           followedAt: row["followed_at"], refreshedAt: row["refreshed_at"], lastError: row["last_error"],
                           withdrawnAt: row["withdrawn_at"])
    }

    static func remoteFollow(row: Row) -> RemoteFollow {
        RemoteFollow(id: row["id"], sourceURL: row["source_url"], reach: (row["private_addresses"] as Int64) == 1 ? .anyAddress : .publicOnly)
    }

    private static func requireFollowed(_ id: Int64, user: UserID, _ db: Database) throws -> FollowedCollection {
        guard let row = try Row.fetchOne(db, sql: "\(followedSelection) WHERE f.id = ? AND f.user_id = ?", arguments: [id, user.rawValue]) else {
            throw LibraryError.noFollowedCollection(id)
        }
        return followed(row: row)
    }

    /// `user`'s collection `id`; another user's is `noCollectionID`, as one that never was.
    private static func requireOwnCollection(_ id: Int64, user: UserID, _ db: Database) throws {
        if try Bool.fetchOne(db, sql: "SELECT 1 FROM collections WHERE id = ? AND user_id = ?", arguments: [id, user.rawValue]) == nil {
            throw LibraryError.noCollectionID(id)
        }
    }

    private static func liveLink(collection id: Int64, _ db: Database) throws -> PublishedLink? {
        guard let row = try Row.fetchOne(db, sql: "SELECT token, published_at FROM published_collections WHERE collection = ? AND withdrawn_at IS NULL",
                                         arguments: [id]),
              let token = ShareToken(row["token"] as String) else { return nil }
        return PublishedLink(token: token, collectionID: id, publishedAt: row["published_at"])
    }

    /// Collection `id`'s items as anyone may see them: what their feeds published, nothing of
    /// anyone's watch state, history, saved items or notes.
    static func sharedItems(collection id: Int64, _ db: Database) throws -> [SharedItem] {
        try Row.fetchAll(db, sql: """
            SELECT i.title, ch.name AS channel_name, ch.platform, i.published, i.duration, i.enclosure_url, i.enclosure_type,
                i.enclosure_length, coalesce(i.thumbnail, ch.image) AS thumbnail, i.url, coalesce(i.guid, i.item_id) AS guid, ci.added_at
            FROM collection_items ci JOIN items i ON i.id = ci.item JOIN channels ch ON ch.id = i.channel_id
            WHERE ci.collection = ? ORDER BY ci.position
            """, arguments: [id]).map { row in
            SharedItem(title: row["title"], channelName: row["channel_name"], platform: Platform(rawValue: row["platform"]),
                       published: row["published"], duration: row["duration"], enclosureURL: row["enclosure_url"],
                       enclosureType: row["enclosure_type"], enclosureLength: row["enclosure_length"], thumbnail: row["thumbnail"],
                       url: row["url"], guid: row["guid"], addedAt: row["added_at"])
        }
    }
}

/// Published collections for anyone, and other servers' followed collections for no user
/// (`SharedCollectionStore`). Claims are taken in IMMEDIATE transactions, as `SQLitePolling`'s.
public struct SQLiteSharedCollections: SharedCollectionStore {
    let library: SQLiteLibrary

    public func sharedCollection(token: ShareToken) async throws(LibraryError) -> SharedLookup? {
        try await library.read { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT p.collection, p.withdrawn_at, c.name, c.description, c.cover_url, coalesce(c.updated_at, c.created_at) AS updated_at,
                    u.name AS owner
                FROM published_collections p LEFT JOIN collections c ON c.id = p.collection LEFT JOIN users u ON u.id = c.user_id
                WHERE p.token = ?
                """, arguments: [token.text]) else { return nil }
            guard (row["withdrawn_at"] as Int64?) == nil, let collection = row["collection"] as Int64? else { return .withdrawn }
            return .live(SharedCollection(name: row["name"], description: row["description"], coverURL: row["cover_url"],
                                          ownerName: row["owner"], updatedAt: row["updated_at"],
                                          items: try SQLiteLibrary.sharedItems(collection: collection, db)))
        }
    }

    public func claimDueRemoteFollows(now: Int64, limit: Int, lease: PollLease) async throws(LibraryError) -> [RemoteFollow] {
        try await library.writeImmediate { db in
            let due = try Row.fetchAll(db, sql: """
                SELECT id, source_url, private_addresses FROM followed_collections
                WHERE source_url IS NOT NULL AND withdrawn_at IS NULL AND (next_refresh IS NULL OR next_refresh <= ?)
                ORDER BY next_refresh IS NOT NULL, next_refresh, id LIMIT ?
                """, arguments: [now, max(0, limit)]).map(SQLiteLibrary.remoteFollow(row:))
            let hold = try db.cachedStatement(sql: "UPDATE followed_collections SET next_refresh = ? WHERE id = ?")
            for follow in due { try hold.execute(arguments: [lease.expiry(from: now), follow.id]) }
            return due
        }
    }

    public func apply(_ refresh: RemoteFollowRefresh, now: Int64) async throws(LibraryError) {
        try await library.write { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT name, description, owner_name, cover_url, items FROM followed_collections
                WHERE id = ? AND source_url IS NOT NULL AND withdrawn_at IS NULL
                """, arguments: [refresh.followID]) else { return }   // unfollowed, or withdrawn for good
            let next = now + SharingRule.refreshInterval
            switch refresh.outcome {
            case .collection(let collection):
                let items = StoredJSON.encode(collection.items)
                let changed = (row["name"] as String) != collection.name || (row["description"] as String?) != collection.description
                    || (row["owner_name"] as String) != collection.ownerName || (row["cover_url"] as String?) != collection.coverURL
                    || (row["items"] as String?) != items
                try db.execute(sql: """
                    UPDATE followed_collections SET name = ?, description = ?, owner_name = ?, cover_url = ?, items = ?,
                        version = version + ?, refreshed_at = ?, next_refresh = ?, last_error = NULL WHERE id = ?
                    """, arguments: [collection.name, collection.description, collection.ownerName, collection.coverURL, items,
                                     changed ? 1 : 0, now, next, refresh.followID])
            case .withdrawn:
                try db.execute(sql: """
                    UPDATE followed_collections SET withdrawn_at = ?, items = NULL, refreshed_at = ?, next_refresh = NULL, last_error = NULL
                    WHERE id = ?
                    """, arguments: [now, now, refresh.followID])
            case .failed(let message):
                try db.execute(sql: "UPDATE followed_collections SET last_error = ?, next_refresh = ? WHERE id = ?",
                               arguments: [message, next, refresh.followID])
            }
        }
    }
}
