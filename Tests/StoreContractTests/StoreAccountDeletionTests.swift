import FeedModel
import Foundation
import LibraryStore
import TestSupport
import XCTest

/// Removing a user (`UserStore.removeUser`) erases everything of theirs and nothing of anyone
/// else's. The tables are not listed here: they are read from the engine's catalog (every column
/// named `user_id` or with a foreign key to `users`, and the single-column foreign keys into
/// those tables), so a table added later is caught: the fixture must give the removed user a row
/// in it (the test says so), and removal must delete it.
final class StoreAccountDeletionTests: XCTestCase {
    /// Gives `user` a row in every per-user table: two subscriptions (`own`, followed by them
    /// alone, and `shared`), watch state, a saved item and a saved page, a collection with an
    /// item (published), history, the queue, player state, a session, a gpodder device, an
    /// uploaded episode action (and, by trigger, sync records and the change log) and a single
    /// sign-on identity; and a follow of the collection published as `following`, when given.
    /// Returns its collection's link.
    @discardableResult
    private func fill(_ db: TestDatabase, _ user: User, own: String, shared: Int64, following: ShareToken? = nil) async throws -> ShareToken {
        let store = db.store(for: user.id)
        let channel = try await store.addTestChannel(own)
        _ = try await store.ingest(Feed(kind: .podcast, title: own, items: [item("\(own)-1"), item("\(own)-2")]), channelID: channel, now: 10)
        await assertEqual(try await store.addTestChannel("shared"), shared)
        let mine = try await store.id(of: "\(own)-1"), common = try await store.id(of: "shared-1")
        try await store.setWatched([mine], now: 11)
        try await store.setProgress(common, seconds: 30, now: 11)
        try await store.save([common], now: 11)
        _ = try await store.saveVideo(page: SavedPage(platform: "youtube", videoID: "v-\(user.name)", videoURL: "https://www.youtube.com/watch?v=v-\(user.name)",
                                                      title: "A page of \(user.name)"), notes: "\(user.name)'s private note", now: 11)
        try await store.createCollection("Later", now: 11)
        try await store.addToCollection(item: common, collection: "Later", now: 11)
        let later = try await unwrap(try await store.collectionDetails().first { $0.name == "Later" })
        let link = try await store.publishCollection(id: later.id, token: .random(), now: 11)
        if let following { _ = try await store.follow(token: following, url: "/shared/\(following)", now: 11) }
        try await store.appendHistory(item: mine, now: 12)
        try await store.appendToUpNext([(.item(common), "shared 1")], now: 12)
        try await store.saveVolume(0.25, now: 12)
        try await store.saveLastPlayed(LastPlayed(target: .item(mine), title: "mine", position: 5), now: 12)
        let session = try await store.createSession(user: user.id, tokenHash: "hash-\(user.name)", deviceName: "phone", now: 12)
        // A re-authentication done, and one under way (single sign-on).
        try await store.recordReauthentication(session: session.id, authenticated: 12)
        try await store.keepSignIn(PendingSignIn(stateHash: "state-\(user.name)", nonce: "n", verifier: "v", callback: "https://x.example/cb",
                                                 destination: .reauthentication(session: session.id, next: "/settings", browser: "b"), started: 12))
        try await store.saveSyncDevice(id: "phone", caption: "\(user.name)'s phone", type: .mobile, now: 12)
        try await store.link(issuer: "https://id.example.com/", subject: "sub-\(user.name)", email: nil, to: user.id, now: 12)
        _ = try await store.recordEpisodeActions([EpisodeAction(podcast: "https://example.com/\(own).xml", episode: "https://example.com/\(own)-2",
                                                                kind: .download, device: "phone", timestamp: 12)], now: 12)
        return link.token
    }

    func testRemovingAUserLeavesNoRowOfTheirsInAnyTableAndNobodyElsesChanges() async throws {
        try await forEachEngine { db in
            let owner = db.owner
            let shared = try await owner.addTestChannel("shared")
            _ = try await owner.ingest(Feed(kind: .podcast, title: "Shared", items: [item("shared-1"), item("shared-2")]), channelID: shared, now: 5)
            let bob = try await owner.addUser(name: "bob", isAdmin: true, passwordHash: "$2b$12$bob", now: 1)
            let carol = try await owner.addUser(name: "carol", isAdmin: false, passwordHash: "$2b$12$carol", now: 1)
            let carols = try await fill(db, carol, own: "carols", shared: shared)
            let bobs = try await fill(db, bob, own: "bobs", shared: shared, following: carols)
            try await owner.setWatched([try await owner.id(of: "shared-2")], now: 13)
            // Bob's change is the log's newest.
            try await db.store(for: bob.id).setProgress(try await owner.id(of: "shared-2"), seconds: 40, now: 14)

            let columns = try userColumns(db)
            let tables = Set(columns.map(\.table))
            XCTAssertTrue(tables.isSuperset(of: ["sessions", "subscriptions", "watch_state", "saved_items", "collections", "play_history",
                                                 "up_next", "player_state", "sync_devices", "sync_subscription_changes", "episode_actions",
                                                 "sync_episode_changes", "changes"]), "the catalog read finds the tables: \(tables.sorted())")
            let children = try childKeys(db, of: Dictionary(columns.map { ($0.table, $0.name) }, uniquingKeysWith: { first, _ in first }))
            XCTAssertTrue(children.contains { $0.table == "collection_items" }, "collection_items hangs on collections: \(children)")
            let users = [UserID.owner, bob.id, carol.id]
            func rows(of id: UserID) throws -> [String: [String]] {
                var rows: [String: [String]] = [:]
                for column in columns { rows["\(column)"] = try self.rows(db, column.table, "\(quote(column.name)) = \(id.rawValue)") }
                for child in children {
                    rows["\(child)"] = try self.rows(db, child.table, "\(quote(child.column)) IN (SELECT \(quote(child.parentColumn)) FROM \(quote(child.parent)) WHERE \(quote(child.parentUserColumn)) = \(id.rawValue))")
                }
                return rows
            }
            var before: [UserID: [String: [String]]] = [:]
            for id in users { before[id] = try rows(of: id) }
            // The fixture reaches every table (a table it misses would pass below without proving anything).
            for (place, found) in try XCTUnwrap(before[bob.id]) where found.isEmpty && !place.hasPrefix("changes_pending.") {
                XCTFail("bob has no row in \(place): give him one in this test's fixture, so that his removal is seen to delete it")
            }
            let channelsBefore = try db.strings("SELECT id FROM channels ORDER BY id")
            let bobsChannel = try await unwrap(try await db.store(for: bob.id).channel(feedURL: "https://example.com/bobs.xml")).id
            let latest = try await db.database.changes.latestChange()

            let removal = try await owner.removeUser(named: "bob")

            XCTAssertEqual(removal.channels, 1, "the channel only bob followed")
            // His collection's link stays, withdrawn (a 410 for good, never a link nobody knows).
            await assertEqual(try await owner.sharedCollections.sharedCollection(token: bobs), .withdrawn)
            XCTAssertEqual(try db.strings("SELECT count(*) FROM users WHERE id = \(bob.id.rawValue)"), ["0"])
            for (place, left) in try rows(of: bob.id) where !left.isEmpty { XCTFail("bob's rows are left in \(place): \(left)") }
            for id in [UserID.owner, carol.id] {
                let after = try rows(of: id)
                for (place, was) in try XCTUnwrap(before[id]) { XCTAssertEqual(after[place], was, "user \(id)'s rows of \(place)") }
            }
            XCTAssertEqual(try db.strings("SELECT id FROM channels ORDER BY id"), channelsBefore.filter { $0 != String(bobsChannel) },
                           "only the channel nobody follows any more went")
            XCTAssertEqual(removal.items.count, 2, "with its items")
            await assertEqual(try await db.store(for: carol.id).allChannels().map(\.feedURL).sorted(),
                              ["https://example.com/carols.xml", "https://example.com/shared.xml"])
            await assertNil(try await owner.session(tokenHash: "hash-bob", now: 20), "his sessions ended")
            await assertEqual(try await owner.session(tokenHash: "hash-carol", now: 20)?.user.id, carol.id)

            // The log keeps its place: its newest change, bob's, is nobody's now, and the next
            // change follows it (a reader at `latest` misses nothing).
            await assertEqual(try await db.database.changes.latestChange(), latest)
            guard case .changes(let all) = try await db.database.changes.changes(after: 0, limit: 100_000) else { return XCTFail("the log is there") }
            XCTAssertFalse(all.contains { $0.user == bob.id })
            XCTAssertEqual(all.last?.seq, latest)
            XCTAssertEqual(all.last?.user, .nobody)
            XCTAssertEqual(all.last?.payload, "{}")
            try await owner.setWatched([try await owner.id(of: "shared-1")], now: 21)
            guard case .changes(let next) = try await db.database.changes.changes(after: latest, limit: 10) else { return XCTFail("after the newest") }
            XCTAssertEqual(next.map(\.user), [.owner])
            XCTAssertEqual(next.first?.seq, latest + 1)
        }
    }

    /// The library's owner and its last admin stay: refused, and nothing of theirs goes.
    func testTheOwnerAndTheLastAdminCannotBeRemoved() async throws {
        try await forEachEngine { db in
            let owner = db.owner
            let ownerName = try await owner.user(id: .owner).name
            await assertThrows(LibraryError.userKept(ownerName, .owner)) { try await owner.removeUser(named: ownerName) }
            let ann = try await owner.addUser(name: "ann", isAdmin: true, passwordHash: nil, now: 1)
            let channel = try await db.store(for: ann.id).addTestChannel("anns")
            // The owner made no admin (nothing in feedctl does this: a library edited by hand).
            try db.execute("UPDATE users SET is_admin = 0 WHERE id = \(UserID.owner.rawValue)")
            await assertThrows(LibraryError.userKept("ann", .lastAdmin)) { try await owner.removeUser(named: "ann") }
            await assertEqual(try await db.store(for: ann.id).allChannels().map(\.id), [channel], "nothing of hers went")
            _ = try await owner.addUser(name: "root", isAdmin: true, passwordHash: nil, now: 2)
            try await owner.removeUser(named: "ann")
            await assertThrows(LibraryError.noUser("ann")) { try await owner.user(named: "ann") }
            // A user who is no admin may go whoever is left.
            let ben = try await owner.addUser(name: "ben", isAdmin: false, passwordHash: nil, now: 3)
            try await owner.removeUser(named: ben.name)
        }
    }

    /// What the export reads page by page: the acting user's rows only, in id order, across pages.
    func testTheExportsPagesHoldTheUsersRowsOnlyInOrder() async throws {
        try await forEachEngine { db in
            let owner = db.owner
            let shared = try await owner.addTestChannel("shared")
            _ = try await owner.ingest(Feed(kind: .podcast, title: "Shared", items: [
                Item(id: "shared-1", guid: "g-1", title: "One", url: "https://example.com/1", enclosure: Enclosure(url: "https://example.com/1.mp3")),
                item("shared-2"), item("shared-3"),
            ]), channelID: shared, now: 5)
            let ids = try await ["shared-1", "shared-2", "shared-3"].asyncMap { try await owner.id(of: $0) }
            let bob = try await owner.addUser(name: "bob", isAdmin: false, passwordHash: nil, now: 1)
            let asBob = db.store(for: bob.id)
            _ = try await asBob.addTestChannel("shared")
            try await owner.setWatched([ids[1]], now: 6)
            try await owner.appendHistory(item: ids[1], now: 6)
            _ = try await owner.recordEpisodeActions([EpisodeAction(podcast: "https://example.com/o.xml", episode: "https://example.com/o.mp3",
                                                                    kind: .download, timestamp: 6)], now: 6)
            try await asBob.setWatched([ids[0]], now: 7)
            try await asBob.setProgress(ids[2], seconds: 33, now: 8)
            try await asBob.setProgress(ids[1], seconds: 12, now: 9)
            for id in [ids[2], ids[0], ids[2]] { try await asBob.appendHistory(item: id, position: 7, now: 10) }
            let actions = (1...3).map { n in
                EpisodeAction(podcast: "https://example.com/shared.xml", episode: "https://example.com/e\(n).mp3", guid: "e\(n)",
                              kind: .play, device: "phone", timestamp: Int64(20 + n), started: 0, position: n, total: 100)
            }
            _ = try await asBob.recordEpisodeActions(actions, now: 20)

            var states: [ItemWatchState] = [], after: Int64 = 0
            while true {
                let page = try await asBob.watchStates(after: after, limit: 2)
                XCTAssertLessThanOrEqual(page.count, 2)
                guard let last = page.last else { break }
                states += page
                after = last.item
            }
            XCTAssertEqual(states.map(\.item), ids, "his three, by item id, and not the owner's")
            XCTAssertEqual(states.map(\.watched), [true, false, false])
            XCTAssertEqual(states.map(\.progressSeconds), [0, 12, 33])
            XCTAssertEqual(states[0].feedURL, "https://example.com/shared.xml")
            XCTAssertEqual(states[0].guid, "g-1")
            XCTAssertEqual(states[0].itemID, "shared-1")
            XCTAssertEqual(states[0].title, "One")
            XCTAssertEqual(states[0].enclosureURL, "https://example.com/1.mp3")
            XCTAssertEqual(states[0].watchedAt, 7)
            XCTAssertNil(states[1].watchedAt)
            XCTAssertEqual(states[2].updatedAt, 8)

            let firstTwo = try await asBob.historyEntries(after: 0, limit: 2)
            XCTAssertEqual(firstTwo.map(\.item), [ids[2], ids[0]])
            let rest = try await asBob.historyEntries(after: try XCTUnwrap(firstTwo.last?.id), limit: 2)
            XCTAssertEqual(rest.map(\.item), [ids[2]])
            XCTAssertEqual(rest.first?.position, 7)
            await assertEqual(try await owner.historyEntries(after: 0, limit: 10).map(\.item), [ids[1]])

            let uploaded = try await asBob.uploadedEpisodeActions(after: 0, limit: 2)
            XCTAssertEqual(uploaded.map(\.action), Array(actions.prefix(2)))
            let more = try await asBob.uploadedEpisodeActions(after: try XCTUnwrap(uploaded.last?.id), limit: 2)
            XCTAssertEqual(more.map(\.action), [actions[2]])
            XCTAssertGreaterThan(more[0].uploaded, 0)
            await assertEqual(try await owner.uploadedEpisodeActions(after: 0, limit: 10).map(\.action.podcast), ["https://example.com/o.xml"])
        }
    }

    // MARK: The catalog

    private struct Column: CustomStringConvertible {
        let table: String, name: String
        var description: String { "\(table).\(name)" }
    }

    /// A single-column foreign key into a table with a user column: its rows are the user's through their parent's.
    private struct ChildKey: CustomStringConvertible {
        let table: String, column: String, parent: String, parentColumn: String, parentUserColumn: String
        var description: String { "\(table).\(column) -> \(parent).\(parentColumn)" }
    }

    /// Every column that names a user: `user_id`, or a foreign key to `users`.
    private func userColumns(_ db: TestDatabase) throws -> [Column] {
        let lines: [String]
        switch db.engine {
        case .sqlite:
            lines = try db.strings("""
                SELECT m.name || ' ' || p.name FROM sqlite_master m JOIN pragma_table_info(m.name) p
                WHERE m.type = 'table' AND m.name <> 'users' AND p.name = 'user_id'
                UNION SELECT m.name || ' ' || f."from" FROM sqlite_master m JOIN pragma_foreign_key_list(m.name) f
                WHERE m.type = 'table' AND f."table" = 'users' ORDER BY 1
                """)
        case .postgresql:
            lines = try db.strings("""
                SELECT c.relname || ' ' || a.attname FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid
                WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p') AND c.relname <> 'users'
                    AND a.attname = 'user_id' AND NOT a.attisdropped
                UNION SELECT cl.relname || ' ' || a.attname FROM pg_constraint k JOIN pg_class cl ON cl.oid = k.conrelid
                    JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = ANY (k.conkey)
                WHERE k.contype = 'f' AND k.confrelid = 'users'::regclass ORDER BY 1
                """)
        }
        return lines.map { line in
            let parts = line.split(separator: " ").map(String.init)
            return Column(table: parts[0], name: parts[1])
        }
    }

    /// The single-column foreign keys into `tables` (a table's name and its user column).
    private func childKeys(_ db: TestDatabase, of tables: [String: String]) throws -> [ChildKey] {
        let lines: [String]
        switch db.engine {
        case .sqlite:
            lines = try db.strings("""
                SELECT m.name || ' ' || f."from" || ' ' || f."table" || ' ' || coalesce(f."to", 'id') FROM sqlite_master m
                JOIN pragma_foreign_key_list(m.name) f WHERE m.type = 'table'
                    AND (SELECT count(*) FROM pragma_foreign_key_list(m.name) g WHERE g.id = f.id) = 1 ORDER BY 1
                """)
        case .postgresql:
            lines = try db.strings("""
                SELECT cl.relname || ' ' || a.attname || ' ' || pc.relname || ' ' || pa.attname FROM pg_constraint k
                    JOIN pg_class cl ON cl.oid = k.conrelid JOIN pg_class pc ON pc.oid = k.confrelid
                    JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = k.conkey[1]
                    JOIN pg_attribute pa ON pa.attrelid = k.confrelid AND pa.attnum = k.confkey[1]
                WHERE k.contype = 'f' AND cardinality(k.conkey) = 1 ORDER BY 1
                """)
        }
        return lines.compactMap { line in
            let parts = line.split(separator: " ").map(String.init)
            guard parts.count == 4, let userColumn = tables[parts[2]] else { return nil }
            return ChildKey(table: parts[0], column: parts[1], parent: parts[2], parentColumn: parts[3], parentUserColumn: userColumn)
        }
    }

    /// The rows of `table` where `condition` holds, each as one text (all its columns), sorted.
    private func rows(_ db: TestDatabase, _ table: String, _ condition: String) throws -> [String] {
        switch db.engine {
        case .sqlite:
            let columns = try db.strings("SELECT name FROM pragma_table_info('\(table)') ORDER BY cid").map(quote)
            return try db.strings("SELECT json_array(\(columns.joined(separator: ", "))) AS r FROM \(quote(table)) WHERE \(condition) ORDER BY r")
        case .postgresql:
            return try db.strings("SELECT row_to_json(t)::text AS r FROM \(quote(table)) t WHERE \(condition) ORDER BY r")
        }
    }

    private func quote(_ name: String) -> String { "\"\(name)\"" }
}
