import FeedModel
import Foundation
import LibraryStore
import TestSupport
import XCTest

/// Copying and moving items between collections over HTTP, in ViewVault's shapes with feedctl's
/// names: one item (`…/items/{item_id}/copy|move`, 409 on a duplicate), the available targets,
/// the bulk operation in one transaction; bad input a 4xx in one line; the change on the user's
/// event stream.
final class CollectionTransferRouteTests: XCTestCase {
    static let itemAnswerKeys: Set<String> = ["success", "message", "duplicate", "items_affected"]
    static let bulkAnswerKeys: Set<String> = ["success", "message", "items_affected", "duplicates_skipped", "errors"]

    /// The demo podcast subscribed (three episodes, oldest first), and collections "A" (holding
    /// all three) and "B" (empty): (ids, channel, A, B).
    private func fixture(_ h: APIHarness, token: String? = nil) async throws -> (ids: [Int], channel: Int, a: Int, b: Int) {
        let added = try await h.object("POST", "/api/channels", body: #"{"channel_url": "\#(h.feeds.url("/podcast.xml"))"}"#, status: 201, token: token)
        let channel = try XCTUnwrap(added["id"] as? Int)
        let page = try await h.object("GET", "/api/feed?sort_by=oldest", token: token)
        let feed = try XCTUnwrap(page["items"] as? [[String: Any]])
        let ids = try feed.map { try XCTUnwrap($0["id"] as? Int) }
        let made = [try await h.object("POST", "/api/collections", body: #"{"name": "A"}"#, status: 201, token: token),
                    try await h.object("POST", "/api/collections", body: #"{"name": "B"}"#, status: 201, token: token)]
        let (a, b) = (try XCTUnwrap(made[0]["id"] as? Int), try XCTUnwrap(made[1]["id"] as? Int))
        for id in ids { _ = try await h.object("POST", "/api/collections/\(a)/items", body: #"{"item_id": \#(id)}"#, status: 201, token: token) }
        return (ids, channel, a, b)
    }

    private func items(_ h: APIHarness, _ collection: Int, token: String? = nil) async throws -> [Int] {
        let answer = try await h.object("GET", "/api/collections/\(collection)", token: token)
        return try XCTUnwrap(answer["items"] as? [[String: Any]]).compactMap { $0["id"] as? Int }
    }

    func testOneItemCopiedAndMovedAndADuplicateAnswers409InTheSameShape() async throws {
        let h = try await APIHarness()
        let (ids, _, a, b) = try await fixture(h)

        let copied = try await h.object("POST", "/api/collections/\(a)/items/\(ids[0])/copy", body: #"{"target_collection_id": \#(b)}"#)
        XCTAssertEqual(Set(copied.keys), Self.itemAnswerKeys)
        XCTAssertEqual(copied["success"] as? Bool, true)
        XCTAssertEqual(copied["duplicate"] as? Bool, false)
        XCTAssertEqual(copied["items_affected"] as? Int, 1)
        XCTAssertEqual(copied["message"] as? String, #"copied 1 item to "B""#)
        let again = try await h.call("POST", "/api/collections/\(a)/items/\(ids[0])/copy", body: #"{"target_collection_id": \#(b)}"#)
        XCTAssertEqual(again.status, 409, again.text)
        let duplicate = try again.object()
        XCTAssertEqual(Set(duplicate.keys), Self.itemAnswerKeys)
        XCTAssertEqual(duplicate["success"] as? Bool, false)
        XCTAssertEqual(duplicate["duplicate"] as? Bool, true)
        XCTAssertEqual(duplicate["items_affected"] as? Int, 0)
        XCTAssertEqual(duplicate["message"] as? String, #"item \#(ids[0]) is already in collection "B""#)

        let moved = try await h.object("POST", "/api/collections/\(a)/items/\(ids[2])/move",
                                       body: #"{"target_collection_id": \#(b), "preserve_metadata": true}"#)
        XCTAssertEqual(moved["message"] as? String, #"moved 1 item to "B""#)
        let source = try await items(h, a), target = try await items(h, b)
        XCTAssertEqual(source, [ids[0], ids[1]])
        XCTAssertEqual(target, [ids[0], ids[2]], "its place in A was third: B's end")
        let moveAgain = try await h.call("POST", "/api/collections/\(a)/items/\(ids[0])/move", body: #"{"target_collection_id": \#(b)}"#)
        XCTAssertEqual(moveAgain.status, 409, moveAgain.text)
        let stillInSource = try await items(h, a)
        XCTAssertEqual(stillInSource, [ids[0], ids[1]], "a refused move leaves the item where it was")

        // Not in the source, or no such collection: 404 with the error's line.
        let missing = try await h.call("POST", "/api/collections/\(a)/items/\(ids[2])/copy", body: #"{"target_collection_id": \#(b)}"#)
        XCTAssertEqual(missing.status, 404, missing.text)
        XCTAssertEqual(try missing.object()["detail"] as? String, #"item \#(ids[2]) is not in collection "A""#)
        let noTarget = try await h.call("POST", "/api/collections/\(a)/items/\(ids[0])/copy", body: #"{"target_collection_id": 9999}"#)
        XCTAssertEqual(noTarget.status, 404, noTarget.text)
        XCTAssertEqual(try noTarget.object()["detail"] as? String, "no collection 9999")
    }

    func testAvailableTargetsSayWhetherTheyHoldAnyOfTheItems() async throws {
        let h = try await APIHarness()
        let (ids, _, a, b) = try await fixture(h)
        let made = try await h.object("POST", "/api/collections", body: #"{"name": "C"}"#, status: 201)
        let c = try XCTUnwrap(made["id"] as? Int)
        _ = try await h.object("POST", "/api/collections/\(c)/items", body: #"{"item_id": \#(ids[1])}"#, status: 201)
        let answer = try await h.object("GET", "/api/collections/\(a)/available-targets")
        XCTAssertEqual(Set(answer.keys), ["collections"])
        let targets = try XCTUnwrap(answer["collections"] as? [[String: Any]])
        XCTAssertEqual(targets.map { Set($0.keys) }, [["id", "name", "item_count", "has_items"], ["id", "name", "item_count", "has_items"]])
        XCTAssertEqual(targets.map { $0["id"] as? Int }, [b, c])
        XCTAssertEqual(targets.map { $0["name"] as? String }, ["B", "C"])
        XCTAssertEqual(targets.map { $0["item_count"] as? Int }, [0, 1])
        XCTAssertEqual(targets.map { $0["has_items"] as? Bool }, [false, true])
        let none = try await h.call("GET", "/api/collections/9999/available-targets")
        XCTAssertEqual(none.status, 404, none.text)
    }

    func testABulkOperationIsOneTransactionWithDuplicatesCountedAndErrorsPerItem() async throws {
        let h = try await APIHarness()
        let (ids, channel, a, b) = try await fixture(h)
        _ = try await h.object("POST", "/api/collections/\(b)/items", body: #"{"item_id": \#(ids[1])}"#, status: 201)
        let body = """
            {"operation": "move", "source_collection_id": \(a), "target_collection_id": \(b), "items": [
                {"item_id": \(ids[2])}, {"item_id": \(ids[1]), "item_type": "item"}, {"item_id": 9999},
                {"item_id": \(channel), "item_type": "channel"}, {"item_id": 8888, "item_type": "collection"}]}
            """
        let answer = try await h.object("POST", "/api/collections/bulk-operation", body: body)
        XCTAssertEqual(Set(answer.keys), Self.bulkAnswerKeys)
        XCTAssertEqual(answer["success"] as? Bool, false, "two items were not found")
        XCTAssertEqual(answer["items_affected"] as? Int, 2, "ids[2], then ids[0] of the channel")
        XCTAssertEqual(answer["duplicates_skipped"] as? Int, 1)
        XCTAssertEqual(answer["message"] as? String, #"moved 2 items to "B"; skipped 1 duplicate (already in "B"); 2 not found"#)
        let errors = try XCTUnwrap(answer["errors"] as? [[String: Any]])
        XCTAssertEqual(errors.map { $0["item_id"] as? Int }, [9999, 8888])
        XCTAssertEqual(errors.map { $0["item_type"] as? String }, ["item", "collection"])
        XCTAssertEqual(errors.map { $0["error"] as? String }, [#"item 9999 is not in collection "A""#, "no collection 8888"])
        let target = try await items(h, b), source = try await items(h, a)
        XCTAssertEqual(target, [ids[1], ids[2], ids[0]])
        XCTAssertEqual(source, [ids[1]], "the duplicate stays in the source")

        // A copy of a whole collection into another.
        let copy = try await h.object("POST", "/api/collections/bulk-operation", body: """
            {"operation": "copy", "source_collection_id": \(b), "target_collection_id": \(a), "items": [{"item_id": \(b), "item_type": "collection"}]}
            """)
        XCTAssertEqual(copy["success"] as? Bool, true)
        XCTAssertEqual(copy["items_affected"] as? Int, 2)
        XCTAssertEqual(copy["duplicates_skipped"] as? Int, 1)
        XCTAssertEqual((copy["errors"] as? [Any])?.count, 0)
        let copied = try await items(h, a)
        XCTAssertEqual(copied, [ids[1], ids[2], ids[0]])
    }

    /// Bad input is a 4xx whose `detail` is one line, never a 500, and changes nothing.
    func testBadInputIsRefusedInOneLine() async throws {
        let h = try await APIHarness(logins: true)
        _ = try await h.addUser("alice", password: "correct horse", admin: false)
        _ = try await h.addUser("bob", password: "bobs password", admin: false)
        let alice = try await h.login("alice", "correct horse"), bob = try await h.login("bob", "bobs password")
        let (ids, _, a, b) = try await fixture(h, token: alice)
        let made = try await h.object("POST", "/api/collections", body: #"{"name": "Bob's"}"#, status: 201, token: bob)
        let bobs = try XCTUnwrap(made["id"] as? Int)
        let many = (1...(CollectionRule.maxTransferSubjects + 1)).map { #"{"item_id": \#($0)}"# }.joined(separator: ",")
        func bulk(_ fields: String) -> String { #"{"source_collection_id": \#(a), "target_collection_id": \#(b), \#(fields)}"# }
        let cases: [(path: String, body: String, status: Int, detail: String)] = [
            ("/api/collections/bulk-operation", bulk(#""operation": "merge", "items": [{"item_id": 1}]"#), 422,
             #"operation must be copy or move, not "merge""#),
            ("/api/collections/bulk-operation", #"{"operation": "copy", "source_collection_id": \#(a), "target_collection_id": \#(a), "items": [{"item_id": \#(ids[0])}]}"#,
             422, "the source and the target are the same collection: copy to another one"),
            ("/api/collections/bulk-operation", bulk(#""operation": "copy", "items": []"#), 422, "name at least one item to copy"),
            ("/api/collections/bulk-operation", bulk(#""operation": "copy", "items": [\#(many)]"#), 422,
             "a copy names at most \(CollectionRule.maxTransferSubjects) items at once (got \(CollectionRule.maxTransferSubjects + 1)): split it"),
            ("/api/collections/bulk-operation", bulk(#""operation": "copy", "items": [{"item_id": "one"}]"#), 422, "items.[0].item_id must be a whole number"),
            ("/api/collections/bulk-operation", bulk(#""operation": "copy", "items": [{"item_id": 1, "item_type": "series"}]"#), 422,
             #"items[0].item_type must be item, channel or collection, not "series""#),
            ("/api/collections/bulk-operation", bulk(#""operation": "copy""#), 422, "items is required"),
            ("/api/collections/bulk-operation", #"{"operation": "copy", "source_collection_id": \#(a), "target_collection_id": \#(bobs), "items": [{"item_id": \#(ids[0])}]}"#,
             404, "no collection \(bobs)"),
            ("/api/collections/bulk-operation", "{not json", 400, "malformed JSON in the request body"),
            ("/api/collections/\(a)/items/\(ids[0])/copy", #"{"target_collection_id": \#(bobs)}"#, 404, "no collection \(bobs)"),
            ("/api/collections/\(a)/items/\(ids[0])/move", #"{"target_collection_id": \#(a)}"#, 422,
             "the source and the target are the same collection: move to another one"),
            ("/api/collections/\(a)/items/\(ids[0])/copy", #"{"target_collection_id": "B"}"#, 422, "target_collection_id must be a whole number"),
            ("/api/collections/\(a)/items/\(ids[0])/copy", #"{"target_collection_id": \#(b), "preserve_metadata": "yes"}"#, 422,
             "preserve_metadata must be true or false"),
            ("/api/collections/\(a)/items/\(ids[0])/copy", "{}", 422, "target_collection_id is required"),
        ]
        for (path, body, status, detail) in cases {
            let reply = try await h.call("POST", path, body: body, token: alice)
            XCTAssertEqual(reply.status, status, "\(path) \(body.prefix(200)): \(reply.text.prefix(300))")
            XCTAssertEqual(try reply.object()["detail"] as? String, detail, "\(path) \(body.prefix(200))")
        }
        let bobsTargets = try await h.call("GET", "/api/collections/\(a)/available-targets", token: bob)
        XCTAssertEqual(bobsTargets.status, 404, "Alice's collection is not Bob's: \(bobsTargets.text)")
        let aliceItems = try await items(h, a, token: alice), aliceTarget = try await items(h, b, token: alice)
        XCTAssertEqual(aliceItems, ids, "nothing changed")
        XCTAssertEqual(aliceTarget, [])
    }

    /// Unsubscribing (the last follower) leaves a collection's items, with their channel's name,
    /// playable by id; the channel's other items go.
    func testACollectionKeepsItsItemsWhenTheirChannelIsRemoved() async throws {
        let h = try await APIHarness()
        let (ids, channel, a, b) = try await fixture(h)
        _ = try await h.object("POST", "/api/collections/\(a)/items/\(ids[1])/move", body: #"{"target_collection_id": \#(b)}"#)
        let removed = try await h.call("DELETE", "/api/channels/\(channel)")
        XCTAssertEqual(removed.status, 204, removed.text)
        let collection = try await h.object("GET", "/api/collections/\(a)")
        let kept = try XCTUnwrap(collection["items"] as? [[String: Any]])
        XCTAssertEqual(kept.map { $0["id"] as? Int }, [ids[0], ids[2]])
        XCTAssertEqual(kept.map { $0["channel_name"] as? String }, ["The Tone Show", "The Tone Show"])
        XCTAssertEqual(kept.map { $0["title"] as? String }, ["Episode 1: Hello", "Episode 3: Four tones"])
        let item = try await h.call("GET", "/api/feed/items/\(ids[2])")
        XCTAssertEqual(item.status, 200, "by its id the item is still the user's: \(item.text)")
        let feed = try await h.object("GET", "/api/feed")
        XCTAssertEqual((feed["items"] as? [Any])?.count, 0, "the feed shows followed channels only")
        // Moving the last one out of B lets it go: it was in no other collection.
        let emptied = try await h.call("DELETE", "/api/collections/\(b)/items/\(ids[1])")
        XCTAssertEqual(emptied.status, 204, emptied.text)
        let gone = try await h.call("GET", "/api/feed/items/\(ids[1])")
        XCTAssertEqual(gone.status, 404, gone.text)
    }

    func testATransferReachesTheUsersEventStream() async throws {
        let h = try await APIHarness(events: true)
        let (ids, _, a, b) = try await fixture(h)
        let stream = try EventStream(port: h.port, path: "/api/events")
        defer { stream.close() }
        _ = stream.read(until: "\n\n", timeout: 10)
        _ = try await h.object("POST", "/api/collections/\(a)/items/\(ids[0])/move", body: #"{"target_collection_id": \#(b)}"#)
        _ = stream.read(until: #"{"collection_id":\#(a),"action":"items"}"#, timeout: 10)
        let text = stream.read(until: #"{"collection_id":\#(b),"action":"items"}"#, timeout: 10)
        let events = EventStreamTests.events(in: text).filter { $0.kind == "collection" }.map(\.data)
        XCTAssertTrue(events.contains(#"{"collection_id":\#(b),"action":"items"}"#), text)
        XCTAssertTrue(events.contains(#"{"collection_id":\#(a),"action":"items"}"#), text)
    }
}
