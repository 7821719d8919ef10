import FeedModel
import Foundation
@testable import LibrarySQLite
import LibraryStore
import TestSupport
import Testing

/// The player's state in the SQLite schema (the queue's and the player state's behaviour is
/// StoreContractTests').
@Suite struct StoreUpNextTests {
    @Test func theVolumeCheckIsTheRule() async throws {
        let t = try TestLibrary()
        let sql = try await t.library.read { db in
            try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'player_state'")
        }
        #expect(sql?.contains("CHECK (\(Schema.volumeCheck))") == true)
        #expect(Schema.volumeCheck == "volume >= \(PlayerVolume.range.lowerBound) AND volume <= \(PlayerVolume.range.upperBound)")
    }
}
