import FeedModel
import LibraryStore

/// Published collections and the collections a user follows, as the SQLite library
/// (SQLiteLibrary+Sharing.swift; the schema's rules: `PostgresSchema.publishedCollections`).
extension PostgresLibrary: SharingStore {
    public var sharedCollections: any SharedCollectionStore { PostgresSharedCollections(library: self) }

    public func publishCollection(id: Int64, token: ShareToken, now: Int64) async throws(LibraryError) -> PublishedLink {
        let user = user
        return try await write { db throws(LibraryError) in
            try Self.lockOwnCollection(id, user: user, db)
            if let live = try Self.liveLink(collection: id, db) { return live }
            try db.query("INSERT INTO published_collections (token, collection, published_at) VALUES ($1, $2, $3)", [token.text, id, now])
            return PublishedLink(token: token, collectionID: id, publishedAt: now)
        }
    }

    public func unpublishCollection(id: Int64, now: Int64) async throws(LibraryError) {
        let user = user
        try await write { db throws(LibraryError) in
            try Self.lockOwnCollection(id, user: user, db)
            let withdrawn = try db.query("UPDATE published_collections SET withdrawn_at = $1 WHERE collection = $2 AND withdrawn_at IS NULL",
                                         [now, id]).affected
            if withdrawn == 0 { throw .notPublished(id) }
        }
    }

    public func publishedLink(collectionID id: Int64) async throws(LibraryError) -> PublishedLink? {
        let user = user
        return try await snapshot { db throws(LibraryError) in
            if try db.query("SELECT 1 FROM collections WHERE id = $1 AND user_id = $2", [id, user.rawValue]).first == nil {
                throw .noCollectionID(id)
            }
            return try Self.liveLink(collection: id, db)
        }
    }

    public func follow(token: ShareToken, url: String, now: Int64) async throws(LibraryError) -> FollowedCollection {
        let user = user
        return try await write { db throws(LibraryError) in
            // The link's row is held until this commits: an unpublishing meanwhile waits, then
            // finds this follow and withdraws it too.
            guard let link = try db.query("""
                SELECT p.id, p.withdrawn_at, c.user_id, c.name, c.description, c.cover_url, u.name AS owner
                FROM published_collections p LEFT JOIN collections c ON c.id = p.collection LEFT JOIN users u ON u.id = c.user_id
                WHERE p.token = $1 FOR SHARE OF p
                """, [token.text]).first else { throw .noSharedCollection }
            if try link.get("withdrawn_at") as Int64? != nil { throw .withdrawnCollection }
            if try link.get("user_id") as Int64? == user.rawValue {
                throw .invalid("that collection is your own: it is among your collections already")
            }
            let linkID: Int64 = try link.get("id")
            let inserted = try db.query("""
                INSERT INTO followed_collections (user_id, url, link, name, description, owner_name, cover_url, followed_at)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING RETURNING id
                """, [user.rawValue, url, linkID, try link.get("name") as String, try link.get("description") as String?,
                      try link.get("owner") as String, try link.get("cover_url") as String?, now]).first
            guard let inserted else {
                let existing: Int64 = try db.query("SELECT id FROM followed_collections WHERE user_id = $1 AND link = $2",
                                                   [user.rawValue, linkID]).first?.get("id") ?? 0
                throw .alreadyFollowing(existing)
            }
            return try Self.requireFollowed(try inserted.get("id"), user: user, db)
        }
    }

    public func follow(remote: NewRemoteFollow, now: Int64) async throws(LibraryError) -> FollowedCollection {
        let user = user
        let collection = remote.collection
        let items = StoredJSON.encode(collection.items)
        return try await write { db throws(LibraryError) in
            let inserted = try db.query("""
                INSERT INTO followed_collections (user_id, url, source_url, private_addresses, name, description, owner_name, cover_url,
                                                  items, followed_at, refreshed_at, next_refresh)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10, $11) ON CONFLICT DO NOTHING RETURNING id
                """, [user.rawValue, remote.url, remote.sourceURL, remote.reach.storedPrivateAddresses, collection.name,
                      collection.description, collection.ownerName, collection.coverURL, items, now,
                      now + SharingRule.refreshInterval]).first
            guard let inserted else {
                let existing: Int64 = try db.query("SELECT id FROM followed_collections WHERE user_id = $1 AND source_url = $2",
                                                   [user.rawValue, remote.sourceURL]).first?.get("id") ?? 0
                throw .alreadyFollowing(existing)
            }
            return try Self.requireFollowed(try inserted.get("id"), user: user, db)
        }
    }

    public func followedCollections() async throws(LibraryError) -> [FollowedCollection] {
        let user = user
        return try await read { db throws(LibraryError) in
            try db.query("\(Self.followedSelection) WHERE f.user_id = $1 ORDER BY \(Self.noCase("f.name")), f.id", [user.rawValue])
                .rows.map(Self.followed(row:))
        }
    }

    public func followedCollection(id: Int64) async throws(LibraryError) -> (collection: FollowedCollection, items: [SharedItem]) {
        let user = user
        return try await snapshot { db throws(LibraryError) in
            let followed = try Self.requireFollowed(id, user: user, db)
            if followed.isWithdrawn { return (followed, []) }
            if followed.isRemote {
                let text: String? = try db.query("SELECT items FROM followed_collections WHERE id = $1", [id]).first?.get("items") ?? nil
                return (followed, StoredJSON.decode(SharedItem.self, text))
            }
            let collection: Int64? = try db.query("""
                SELECT p.collection FROM followed_collections f JOIN published_collections p ON p.id = f.link WHERE f.id = $1
                """, [id]).first?.get("collection") ?? nil
            guard let collection else { return (followed, []) }
            return (followed, try Self.sharedItems(collection: collection, db))
        }
    }

    public func unfollow(id: Int64) async throws(LibraryError) {
        let user = user
        try await write { db throws(LibraryError) in
            if try db.query("DELETE FROM followed_collections WHERE id = $1 AND user_id = $2", [id, user.rawValue]).affected == 0 {
                throw .noFollowedCollection(id)
            }
        }
    }

    public func remoteFollows() async throws(LibraryError) -> [RemoteFollow] {
        let user = user
        return try await read { db throws(LibraryError) in
            try db.query("""
                SELECT id, source_url, private_addresses FROM followed_collections
                WHERE user_id = $1 AND source_url IS NOT NULL AND withdrawn_at IS NULL ORDER BY id
                """, [user.rawValue]).rows.map(Self.remoteFollow(row:))
        }
    }

    // MARK: rows

    /// A followed collection with its items' count now (a local one's live collection's).
    static let followedSelection = """
        SELECT f.*, CASE WHEN f.withdrawn_at IS NOT NULL THEN 0
                         WHEN f.link IS NULL THEN coalesce(json_array_length(f.items::json), 0)
                         ELSE (SELECT count(*) FROM collection_items ci JOIN published_collections p ON p.collection = ci.collection
                               WHERE p.id = f.link) END AS item_count
        FROM followed_collections f
        """

    static func followed(row: PGRow) throws(LibraryError) -> FollowedCollection {
        FollowedCollection(id: try row.get("id"), url: try row.get("url"), sourceURL: try row.get("source_url"), name: try row.get("name"),
                           description: try row.get("description"), ownerName: try row.get("owner_name"), coverURL: try row.get("cover_url"),
                           itemCount: try row.get("item_count"), followedAt: try row.get("followed_at"),
                           refreshedAt: try row.get("refreshed_at"), lastError: try row.get("last_error"),
                           withdrawnAt: try row.get("withdrawn_at"))
    }

    static func remoteFollow(row: PGRow) throws(LibraryError) -> RemoteFollow {
        RemoteFollow(id: try row.get("id"), sourceURL: try row.get("source_url"),
                     reach: AddressReach(storedPrivateAddresses: try row.get("private_addresses")))
    }

    private static func requireFollowed(_ id: Int64, user: UserID, _ db: PGConnection) throws(LibraryError) -> FollowedCollection {
        guard let row = try db.query("\(followedSelection) WHERE f.id = $1 AND f.user_id = $2", [id, user.rawValue]).first else {
            throw .noFollowedCollection(id)
        }
        return try followed(row: row)
    }

    /// Locks `user`'s collection `id` for this transaction; another user's is `noCollectionID`.
    private static func lockOwnCollection(_ id: Int64, user: UserID, _ db: PGConnection) throws(LibraryError) {
        if try db.query("SELECT 1 FROM collections WHERE id = $1 AND user_id = $2 FOR NO KEY UPDATE", [id, user.rawValue]).first == nil {
            throw .noCollectionID(id)
        }
    }

    private static func liveLink(collection id: Int64, _ db: PGConnection) throws(LibraryError) -> PublishedLink? {
        guard let row = try db.query("SELECT token, published_at FROM published_collections WHERE collection = $1 AND withdrawn_at IS NULL",
                                     [id]).first,
              let token = ShareToken(try row.get("token") as String) else { return nil }
        return PublishedLink(token: token, collectionID: id, publishedAt: try row.get("published_at"))
    }

    /// Collection `id`'s items as anyone may see them: what their feeds published, nothing of
    /// anyone's watch state, history, saved items or notes.
    static func sharedItems(collection id: Int64, _ db: PGConnection) throws(LibraryError) -> [SharedItem] {
        try db.query("""
            SELECT i.title, ch.name AS channel_name, ch.platform, i.published, i.duration, i.enclosure_url, i.enclosure_type,
                i.enclosure_length, coalesce(i.thumbnail, ch.image) AS thumbnail, i.url, coalesce(i.guid, i.item_id) AS guid, ci.added_at
            FROM collection_items ci JOIN items i ON i.id = ci.item JOIN channels ch ON ch.id = i.channel_id
            WHERE ci.collection = $1 ORDER BY ci.position
            """, [id]).rows.map { row throws(LibraryError) in
            SharedItem(title: try row.get("title"), channelName: try row.get("channel_name"),
                       platform: Platform(rawValue: try row.get("platform") as String), published: try row.get("published"),
                       duration: try row.get("duration"), enclosureURL: try row.get("enclosure_url"),
                       enclosureType: try row.get("enclosure_type"), enclosureLength: try row.get("enclosure_length"),
                       thumbnail: try row.get("thumbnail"), url: try row.get("url"), guid: try row.get("guid"), addedAt: try row.get("added_at"))
        }
    }
}

/// Published collections for anyone, and other servers' followed collections for no user
/// (`SharedCollectionStore`). A claim skips rows another refresher holds locked.
public struct PostgresSharedCollections: SharedCollectionStore {
    let library: PostgresLibrary

    public func sharedCollection(token: ShareToken) async throws(LibraryError) -> SharedLookup? {
        try await library.snapshot { db throws(LibraryError) in
            guard let row = try db.query("""
                SELECT p.collection, p.withdrawn_at, c.name, c.description, c.cover_url, coalesce(c.updated_at, c.created_at) AS updated_at,
                    u.name AS owner
                FROM published_collections p LEFT JOIN collections c ON c.id = p.collection LEFT JOIN users u ON u.id = c.user_id
                WHERE p.token = $1
                """, [token.text]).first else { return nil }
            guard try row.get("withdrawn_at") as Int64? == nil, let collection = try row.get("collection") as Int64? else { return .withdrawn }
            return .live(SharedCollection(name: try row.get("name"), description: try row.get("description"), coverURL: try row.get("cover_url"),
                                          ownerName: try row.get("owner"), updatedAt: try row.get("updated_at"),
                                          items: try PostgresLibrary.sharedItems(collection: collection, db)))
        }
    }

    public func claimDueRemoteFollows(now: Int64, limit: Int, lease: PollLease) async throws(LibraryError) -> [RemoteFollow] {
        try await library.write { db throws(LibraryError) in
            try db.query("""
                WITH due AS (
                    SELECT id FROM followed_collections
                    WHERE source_url IS NOT NULL AND withdrawn_at IS NULL AND (next_refresh IS NULL OR next_refresh <= $1)
                    ORDER BY next_refresh NULLS FIRST, id LIMIT $2 FOR UPDATE SKIP LOCKED
                )
                UPDATE followed_collections f SET next_refresh = $3 FROM due WHERE f.id = due.id
                RETURNING f.id, f.source_url, f.private_addresses
                """, [now, Int64(max(0, limit)), lease.expiry(from: now)]).rows.map(PostgresLibrary.remoteFollow(row:)).sorted { $0.id < $1.id }
        }
    }

    public func apply(_ refresh: RemoteFollowRefresh, now: Int64) async throws(LibraryError) {
        try await library.write { db throws(LibraryError) in
            guard let row = try db.query("""
                SELECT name, description, owner_name, cover_url, items FROM followed_collections
                WHERE id = $1 AND source_url IS NOT NULL AND withdrawn_at IS NULL FOR UPDATE
                """, [refresh.followID]).first else { return }   // unfollowed, or withdrawn for good
            let next = now + SharingRule.refreshInterval
            switch refresh.outcome {
            case .collection(let collection):
                let items = StoredJSON.encode(collection.items)
                let (name, description, owner, cover, stored): (String, String?, String, String?, String?) =
                    (try row.get("name"), try row.get("description"), try row.get("owner_name"), try row.get("cover_url"), try row.get("items"))
                let changed = name != collection.name || description != collection.description || owner != collection.ownerName
                    || cover != collection.coverURL || stored != items
                try db.query("""
                    UPDATE followed_collections SET name = $1, description = $2, owner_name = $3, cover_url = $4, items = $5,
                        version = version + $6, refreshed_at = $7, next_refresh = $8, last_error = NULL WHERE id = $9
                    """, [collection.name, collection.description, collection.ownerName, collection.coverURL, items,
                          Int64(changed ? 1 : 0), now, next, refresh.followID])
            case .withdrawn:
                try db.query("""
                    UPDATE followed_collections SET withdrawn_at = $1, items = NULL, refreshed_at = $1, next_refresh = NULL, last_error = NULL
                    WHERE id = $2
                    """, [now, refresh.followID])
            case .failed(let message):
                try db.query("UPDATE followed_collections SET last_error = $1, next_refresh = $2 WHERE id = $3",
                             [message, next, refresh.followID])
            }
        }
    }
}
