import FeedModel
import Foundation
import GRDB
@testable import LibrarySQLite
import LibraryStore
import TestSupport
import Testing

/// A removed user's rows, table by table (what the store shows of it, users and sessions are
/// StoreContractTests').
@Suite struct StoreUserStoreTests {
    let t = try! TestLibrary()

    @Test func removingAUserLeavesNoRowOfTheirs() async throws {
        let bob = try await t.library.addUser(name: "bob", isAdmin: false, passwordHash: nil, now: 1)
        let asBob = t.library.acting(as: bob.id)
        let both = try await t.library.addTestChannel("both")
        let his = try await asBob.addTestChannel("his")
        #expect(try await asBob.addTestChannel("both") == both)
        _ = try await t.library.ingest(Feed(kind: .podcast, title: "Both", items: [item("b1")]), channelID: both, now: 2)
        _ = try await t.library.ingest(Feed(kind: .podcast, title: "His", items: [item("h1")]), channelID: his, now: 2)
        let b1 = try await t.library.id(of: "b1"), h1 = try await asBob.id(of: "h1")
        try await t.library.setWatched([b1], now: 3)
        try await asBob.setWatched([b1, h1], now: 3)
        try await asBob.save([b1], now: 3)
        try await asBob.createCollection("Later", now: 3)
        try await asBob.addToCollection(item: b1, collection: "Later", now: 3)
        try await asBob.appendHistory(item: h1, now: 3)
        try await asBob.appendToUpNext([(.item(h1), "h1")], now: 3)
        try await asBob.saveVolume(0.5, now: 3)
        try await asBob.createSession(user: bob.id, tokenHash: "h-bob", deviceName: "phone", now: 3)

        try await t.library.removeUser(named: "bob")
        let left = try await t.library.read { db in
            try ["subscriptions", "watch_state", "saved_items", "collections", "collection_items", "play_history", "up_next",
                 "player_state", "sessions"].map { table in
                "\(table):\(try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table) WHERE \(table == "collection_items" ? "1" : "user_id <> 1")") ?? -1)"
            }
        }
        #expect(left == ["subscriptions:0", "watch_state:0", "saved_items:0", "collections:0", "collection_items:0", "play_history:0",
                         "up_next:0", "player_state:0", "sessions:0"])
        let hisChannel = try await t.library.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM channels WHERE id = ?", arguments: [his]) }
        #expect(hisChannel == 0, "a channel nobody follows any more goes")
    }
}
