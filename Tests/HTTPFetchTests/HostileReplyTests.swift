import Foundation
import TestSupport
import XCTest
@testable import HTTPFetch

/// Issue 14, item 9: what a hostile or broken server does must be named for what it is.
/// The server's hostile routes are in `Tests/Support/http_server.py`.
final class HostileReplyTests: XCTestCase {
    private var server: TestHTTPServer!
    private let fetcher = Fetcher()

    override func setUpWithError() throws {
        server = try TestHTTPServer()
    }

    override func tearDown() {
        server.stop()
    }

    private func failure(_ request: FetchRequest) async throws -> FetchError {
        do {
            let response = try await fetcher.fetch(request)
            throw TestHTTPServer.Failure(description: "expected an error, got HTTP \(response.status)")
        } catch let error as FetchError {
            return error
        }
    }

    /// A TLS handshake that never completes is the connect timeout (it said "timed out after 60 s").
    func testTLSHandshakeThatNeverCompletesIsTheConnectTimeout() async throws {
        let port = try String(decoding: await fetcher.fetch(FetchRequest(url: server.url("/silent-port"), maxBytes: 100)).body, as: UTF8.self)
        let url = "https://127.0.0.1:\(port)/feed.xml"
        let error = try await failure(FetchRequest(url: url, maxBytes: 1_000_000, connectTimeout: 1, totalTimeout: 30))
        XCTAssertEqual(error.kind, .timeout)
        XCTAssertEqual(error.description, "\(url): TLS handshake timed out after 1 s (the connect timeout)")
    }

    /// A reply that is not HTTP (it said "protocol not allowed (only http and https)").
    func testGarbageReplyIsNotAnHTTPResponse() async throws {
        let url = server.url("/garbage")
        let error = try await failure(FetchRequest(url: url, maxBytes: 1_000_000))
        XCTAssertEqual(error.kind, .connection)
        XCTAssertEqual(error.description, "\(url): the server's reply is not HTTP (no status line)")
    }

    /// One header line of 50 MB (it said "Out of memory").
    func testHugeHeaderLineIsNamed() async throws {
        let url = server.url("/huge-header?kb=50000")
        let error = try await failure(FetchRequest(url: url, maxBytes: 1_000_000))
        XCTAssertEqual(error.kind, .tooLarge)
        XCTAssertEqual(error.description, "\(url): response header line longer than 100 KB")
    }

    /// Many header lines adding up to MBs: the head is capped too (it was kept whole in memory).
    func testHugeHeadOfManyLinesIsCapped() async throws {
        let url = server.url("/huge-header?kb=20000&lines=1")
        let error = try await failure(FetchRequest(url: url, maxBytes: 1_000_000))
        XCTAssertEqual(error.kind, .tooLarge)
        XCTAssertEqual(error.description, "\(url): response header larger than 256 KB")
    }

    /// A head trickled in below the stall rate is bounded by the total timeout, and says so.
    func testTrickledHeadIsBoundedByTheTotalTimeout() async throws {
        let url = server.url("/trickle-head?delay=0.3")
        let error = try await failure(FetchRequest(url: url, maxBytes: 1_000_000, totalTimeout: 2, stallTimeout: 5))
        XCTAssertEqual(error.kind, .timeout)
        XCTAssertEqual(error.description, "\(url): timed out after 2 s")
    }
}
