import APIServer
import Foundation
import LibraryStore
import TestSupport
import XCTest

/// Issue 27: `/api/queue` is the user's up-next queue, the library's own: what the API writes,
/// the store (the CLI's `queue list`, the daemon's next) reads, and the other way round; each
/// user has theirs.
final class QueueRouteTests: XCTestCase {
    private func titles(_ answer: [String: Any]) -> [String] {
        ((answer["items"] as? [[String: Any]]) ?? []).map { ($0["item"] as? [String: Any])?["title"] as? String ?? "?" }
    }
    private func entryIDs(_ answer: [String: Any]) -> [Int] {
        ((answer["items"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? Int }
    }

    func testTheQueueIsTheLibrarysAndEveryUsersOwn() async throws {
        let h = try await APIHarness(logins: true)
        try await h.addUser("member", password: "member's password", admin: false)
        h.token = try await h.login("member", "member's password")
        _ = try await h.object("POST", "/api/subscriptions", body: #"{"url": "\#(h.feeds.url("/podcast.xml"))"}"#, status: 201)
        let member = try await h.owner.user(named: "member").id
        let store = h.database.store(for: member)
        let ids = try await ["tone-show-1", "tone-show-2", "tone-show-3"].asyncMap { try await store.id(of: $0) }
        let names = try await ids.asyncMap { try await store.item(id: $0).title }

        let empty = try await h.object("GET", "/api/queue")
        XCTAssertEqual(titles(empty), [])
        for id in ids { _ = try await h.object("POST", "/api/queue", body: #"{"item_id": \#(id)}"#) }
        let again = try await h.object("POST", "/api/queue", body: #"{"item_id": \#(ids[0])}"#)
        XCTAssertEqual(titles(again), names, "an item waits once")
        let stored = try await store.upNext().map(\.target)
        XCTAssertEqual(stored, ids.map { MediaTarget.item($0) }, "the library's queue (feedctl queue list) is the same")

        let next = try await h.object("POST", "/api/queue", body: #"{"item_id": \#(ids[2]), "next": true}"#)
        XCTAssertEqual(titles(next), [names[2], names[0], names[1]])
        let entries = entryIDs(next)
        let moved = try await h.object("PUT", "/api/queue/\(entries[0])", body: #"{"position": 3}"#)
        XCTAssertEqual(titles(moved), [names[0], names[1], names[2]])
        let past = try await h.call("PUT", "/api/queue/\(entries[0])", body: #"{"position": 9}"#)
        XCTAssertEqual(past.status, 422, past.text)
        let removed = try await h.object("DELETE", "/api/queue/\(entries[1])")
        XCTAssertEqual(titles(removed), [names[1], names[2]])
        let gone = try await h.call("DELETE", "/api/queue/\(entries[1])")
        XCTAssertEqual(gone.status, 404, gone.text)

        // The CLI's (the store's) changes are the API's to see; the owner's queue is another.
        _ = try await store.popUpNext()
        let popped = try await h.object("GET", "/api/queue")
        XCTAssertEqual(titles(popped), [names[2]])
        let ownerQueue = try await h.owner.upNext()
        XCTAssertEqual(ownerQueue, [], "the owner's queue is theirs")
        let unknown = try await h.call("POST", "/api/queue", body: #"{"item_id": 999999}"#)
        XCTAssertEqual(unknown.status, 404, unknown.text)
        let cleared = try await h.object("DELETE", "/api/queue")
        XCTAssertEqual(titles(cleared), [])
        let none = try await store.upNext()
        XCTAssertEqual(none, [])
    }
}

private extension Array {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var out: [T] = []
        for element in self { out.append(try await transform(element)) }
        return out
    }
}
