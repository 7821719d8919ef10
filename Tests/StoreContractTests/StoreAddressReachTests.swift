import FeedModel
import Foundation
import LibraryStore
import TestSupport
import XCTest

/// `AddressReach` in the library (issue 26): each subscription keeps what its user was allowed
/// when they subscribed, and a channel may reach what all of its subscriptions may, whoever
/// reads it (the daemon's due channels, a user's own list, a download).
final class StoreAddressReachTests: XCTestCase {
    func testAChannelReachesWhatEveryFollowerMay() async throws {
        try await forEachEngine { db in
            let library = db.owner
            let bobUser = try await library.addUser(name: "bob", isAdmin: false, passwordHash: nil, now: 1)
            let bob = db.store(for: bobUser.id)
            let feed = "http://nas.localhost:8080/feed.xml"

            // The owner's own subscription may reach private addresses.
            let owned = try await library.addChannel(platform: .podcast, sourceURL: feed, feedURL: feed, name: "NAS", now: 10)
            XCTAssertEqual(owned.reach, .anyAddress)
            await assertEqual(try await library.polling.addressReach(feedURL: feed), .anyAddress)

            // Bob follows the same feed from a server that allows only public addresses: the shared
            // channel is public only for every poller, the owner's daemon included.
            _ = try await bob.addChannel(platform: .podcast, sourceURL: feed, feedURL: feed, name: "NAS", reach: .publicOnly, now: 20)
            await assertEqual(try await library.channel(id: owned.id).reach, .publicOnly)
            await assertEqual(try await bob.channel(id: owned.id).reach, .publicOnly)
            await assertEqual(try await library.polling.dueChannels(now: 30).map(\.reach), [.publicOnly])
            await assertEqual(try await library.polling.claimDueChannels(now: 30, claimant: "test").map(\.reach), [.publicOnly])
            await assertEqual(try await library.polling.addressReach(feedURL: feed), .publicOnly)

            // His item's download is public only too.
            try await library.ingest(items: [Item(id: "e1", title: "Episode", enclosure: Enclosure(url: "http://nas.localhost:8080/e1.mp3"))],
                                     channelID: owned.id, now: 40)
            let itemID = try await unwrap(try await library.itemIDs(channelID: owned.id).first)
            await assertEqual(try await library.downloadItems(ids: [itemID]).map(\.reach), [.publicOnly])

            // Once Bob unsubscribes, the owner's reach is the channel's again.
            try await bob.removeChannel(id: owned.id)
            await assertEqual(try await library.channel(id: owned.id).reach, .anyAddress)
            await assertEqual(try await library.downloadItems(ids: [itemID]).map(\.reach), [.anyAddress])
            await assertNil(try await library.polling.addressReach(feedURL: "http://unknown.example/feed"))
        }
    }
}
