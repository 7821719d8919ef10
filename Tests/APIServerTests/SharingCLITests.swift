import APIServer
import FeedModel
import Foundation
import LibraryStore
import TestSupport
import XCTest

/// The sharing commands through the built `feedctl` on a library of their own (the engine under
/// test): `collection publish|unpublish NAME`, `follow URL` (another real feedctl server on
/// 127.0.0.1, and a collection of the same library), `followed [ID]` with withdrawn ones marked,
/// `unfollow ID`, and `feedctl sync` reading other servers' collections again.
final class SharingCLITests: XCTestCase {
    /// `feedctl ARGUMENTS --db LIBRARY`, off the test's task (the in-process server answers it
    /// meanwhile), with a config file of its own (`server.public_url` when given).
    private func feedctl(_ arguments: [String], _ library: TestDatabase, config: String) async throws -> ProcessRunner.Result {
        let program = try XCTUnwrap(PackagePaths.builtProgram("feedctl")?.path, "feedctl not built")
        let environment = ProcessInfo.processInfo.environment.merging(["FEEDCTL_CONFIG": config]) { _, ours in ours }
        let command = arguments + ["--db", library.dbSetting]
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try ProcessRunner.capture(program, command, environment: environment, timeout: 60) })
            }
        }
    }

    private func json(_ result: ProcessRunner.Result, file: StaticString = #filePath, line: UInt = #line) throws -> Any {
        XCTAssertEqual(result.status, 0, result.stderr, file: file, line: line)
        return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
    }

    func testPublishingAndFollowingFromTheCommandLine() async throws {
        let (there, alice, collection, items) = try await PublishedCollectionTests.aliceWithACollection()
        let published = try await there.object("POST", "/api/collections/\(collection)/publish", token: alice)
        let remote = there.base + (try XCTUnwrap(published["url"] as? String))
        let mine = try await TestDatabase.make()
        let config = there.dir.file("config.toml")

        // Publish: paths without a public address (said on stderr), whole links with one.
        _ = try await mine.owner.createCollection("Mine & yours", description: nil, now: 1)
        var run = try await feedctl(["collection", "publish", "Mine & yours"], mine, config: config)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.hasPrefix("published \"Mine & yours\":\n  page  /shared/"), run.stdout)
        XCTAssertTrue(run.stderr.contains("feedctl config set server.public_url"), run.stderr)
        try "[server]\npublic_url = \"https://feeds.example.org/\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        let publishRun = try await feedctl(["collection", "publish", "Mine & yours", "--json"], mine, config: config)
        let links = try XCTUnwrap(try json(publishRun) as? [String: String])
        let token = String(try XCTUnwrap(links["url"]).suffix(SharingRule.tokenCharacters))
        XCTAssertEqual(links, ["url": "https://feeds.example.org/shared/\(token)", "rss_url": "https://feeds.example.org/shared/\(token)/feed.xml",
                               "json_url": "https://feeds.example.org/api/shared/\(token)"], "the same link, whole")
        run = try await feedctl(["collection", "unpublish", "Mine & yours"], mine, config: config)
        XCTAssertEqual(run.stdout, "unpublished \"Mine & yours\": its links answer 410 Gone from now on\n")
        let shareToken = try XCTUnwrap(ShareToken(token))
        await assertEqual(try await mine.owner.sharedCollections.sharedCollection(token: shareToken), .withdrawn)
        run = try await feedctl(["collection", "unpublish", "Mine & yours"], mine, config: config)
        XCTAssertEqual(run.status, 1)
        run = try await feedctl(["follow", "https://feeds.example.org/shared/\(token)"], mine, config: config)
        XCTAssertEqual(run.stderr, "feedctl: that collection was withdrawn by its owner\n", "this library's, whatever host it names")

        // Follow another server's collection; a sync reads it again (`--all`: now; a plain sync
        // reads those due, as it polls the due channels).
        run = try await feedctl(["follow", remote], mine, config: config)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stdout, "following 1 \"Road trip\" by alice, 3 items (on 127.0.0.1)\n")
        let listRun = try await feedctl(["followed", "--json"], mine, config: config)
        let listed = try XCTUnwrap(try json(listRun) as? [[String: Any]])
        XCTAssertEqual(listed.count, 1)
        XCTAssertEqual(Set(listed[0].keys), ["id", "url", "name", "description", "owner_name", "item_count", "remote", "source_url",
                                             "withdrawn", "withdrawn_at", "followed_at", "refreshed_at", "last_error"])
        XCTAssertEqual(listed[0]["remote"] as? Bool, true)
        _ = try await there.call("DELETE", "/api/collections/\(collection)/items/\(items[0])", token: alice)
        run = try await feedctl(["sync", "--all"], mine, config: config)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("followed collections: 1 read, 0 withdrawn, 0 failed"), run.stdout)
        let oneRun = try await feedctl(["followed", "1", "--json"], mine, config: config)
        let one = try XCTUnwrap(try json(oneRun) as? [String: Any])
        XCTAssertEqual(one["item_count"] as? Int, 2)
        XCTAssertEqual((one["items"] as? [[String: Any]])?.count, 2)
        run = try await feedctl(["followed", "1"], mine, config: config)
        XCTAssertTrue(run.stdout.hasPrefix("1 \"Road trip\" by alice, 2 items (on 127.0.0.1)\n  1. "), run.stdout)

        // Withdrawn there: the next sync marks it so here.
        _ = try await there.object("POST", "/api/collections/\(collection)/unpublish", token: alice)
        run = try await feedctl(["sync", "--all"], mine, config: config)
        XCTAssertTrue(run.stdout.contains("followed collections: 0 read, 1 withdrawn, 0 failed"), run.stdout)
        run = try await feedctl(["followed"], mine, config: config)
        XCTAssertEqual(run.stdout, "1  \"Road trip\" by alice  [withdrawn by its owner]\n")

        // A collection of this library, by its path alone; then unfollowed.
        let bob = try await mine.owner.addUser(name: "bob", isAdmin: false, passwordHash: nil, now: 1)
        let bobs = try await mine.store(for: bob.id).createCollection("Bob's", description: nil, now: 1)
        let bobLink = try await mine.store(for: bob.id).publishCollection(id: bobs.id, token: .random(), now: 2)
        run = try await feedctl(["follow", "/shared/\(bobLink.token)"], mine, config: config)
        XCTAssertEqual(run.stdout, "following 2 \"Bob's\" by bob, 0 items\n", run.stderr)
        run = try await feedctl(["unfollow", "1"], mine, config: config)
        XCTAssertEqual(run.stdout, "stopped following 1 \"Road trip\"\n")
        run = try await feedctl(["followed"], mine, config: config)
        XCTAssertEqual(run.stdout, "2  \"Bob's\" by bob, 0 items\n")
        run = try await feedctl(["follow", "https://example.org/feed.xml"], mine, config: config)
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stderr.hasPrefix("feedctl: \"https://example.org/feed.xml\" is not a link of a published collection"), run.stderr)
    }
}
