import Foundation
import TestSupport
import XCTest
@testable import HTTPFetch

/// Issue 14, item 1: one slow feed must never cost another feed anything. Each test puts slow
/// transfers (a body trickled one byte at a time) and healthy and failing feeds on the same host,
/// and checks outcomes only: the healthy ones succeed and the failing ones report their own
/// errors while the slow ones are still open. (No durations are asserted; every wait is bounded
/// by the requests' own timeouts.)
final class SlowHostTests: XCTestCase {
    private var server: TestHTTPServer!
    private let feed = "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>fine</title></channel></rss>\n"

    override func setUpWithError() throws {
        server = try TestHTTPServer()
        try server.write("feed.xml", feed)
    }

    override func tearDown() {
        server.stop()
    }

    /// `slow` trickled bodies first in the queue, then 10 healthy feeds and 3 failing ones, all
    /// on 127.0.0.1:port; returns once every non-slow result is in, asserting that none of the
    /// slow ones has finished by then.
    private func fetchBehindSlow(_ slow: Int, fetcher: Fetcher = Fetcher()) async throws {
        // 100 bytes at 0.4 s each: 40 s, longer than any healthy fetch may take here (20 s).
        let slowURLs = (0..<slow).map { server.url("/slow?bytes=100&delay=0.4&n=\($0)") }
        let healthy = (0..<10).map { server.url("/feed.xml?n=\($0)") }
        let failing = [server.url("/status/500"), server.url("/status/404"), server.url("/truncated")]
        let urls = slowURLs + healthy + failing
        let requests = urls.map { FetchRequest(url: $0, maxBytes: 1_000_000, totalTimeout: 20) }
        var results: [Int: Result<FetchResponse, FetchError>] = [:]
        for await (index, result) in fetcher.fetchAll(requests) {
            XCTAssertGreaterThanOrEqual(index, slow, "a slow transfer finished first: \(result)")
            results[index] = result
            if results.count == healthy.count + failing.count { break }  // leaving aborts the slow ones
        }
        for i in 0..<healthy.count {
            let result = try XCTUnwrap(results[slow + i], healthy[i])
            XCTAssertEqual(try result.get().body, Array(feed.utf8), healthy[i])
        }
        let errors = (0..<failing.count).map { i -> String in
            guard case .failure(let error)? = results[slow + healthy.count + i] else { return "no error" }
            return error.description
        }
        XCTAssertEqual(errors, [
            "\(failing[0]): HTTP 500 Internal Server Error",
            "\(failing[1]): HTTP 404 Not Found",
            "\(failing[2]): connection closed after 100 of 1000 bytes",
        ])
    }

    func testOneSlowBodyDoesNotHoldUpTheHost() async throws {
        try await fetchBehindSlow(1)
    }

    /// More slow transfers than the host's connection bound: the healthy ones still get through.
    func testSlowTransfersFillingTheHostBoundDoNotHoldUpTheHost() async throws {
        try await fetchBehindSlow(FetchBounds.default.connectionsPerHost + 2)
    }

    /// More slow transfers than the fetcher's whole concurrency.
    func testSlowTransfersFillingEverySlotDoNotHoldUpTheRest() async throws {
        try await fetchBehindSlow(6, fetcher: Fetcher(concurrency: 4))
    }

    /// Politeness: without slow transfers, no more than the per-host bound run against one host.
    func testConnectionsPerHostAreBounded() async throws {
        let bound = FetchBounds.default.connectionsPerHost
        let requests = (0..<(bound * 3)).map { FetchRequest(url: server.url("/slow?bytes=3&delay=0.05&n=\($0)"), maxBytes: 1_000) }
        var done = 0
        for await (_, result) in Fetcher(concurrency: bound * 3).fetchAll(requests) {
            XCTAssertEqual(try result.get().body, Array("xxx".utf8))
            done += 1
        }
        XCTAssertEqual(done, bound * 3)
        XCTAssertLessThanOrEqual(try server.stats().max_inflight, bound)
    }
}
