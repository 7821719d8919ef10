import Foundation
import TestSupport
import XCTest
@testable import HTTPFetch

/// The fetcher against the real test server (`Tests/Support/http_server.py`) on 127.0.0.1.
final class FetcherTests: XCTestCase {
    private var server: TestHTTPServer!
    private let fetcher = Fetcher()
    private let feed = "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Ünïcode feed</title></channel></rss>\n"

    override func setUpWithError() throws {
        server = try TestHTTPServer()
        try server.write("feed.xml", feed)
    }

    override func tearDown() {
        server.stop()
    }

    /// The error a fetch throws; throws (failing the test) if it succeeds.
    private func failure(_ request: FetchRequest) async throws -> FetchError {
        do {
            let response = try await fetcher.fetch(request)
            throw TestHTTPServer.Failure(description: "expected an error, got HTTP \(response.status)")
        } catch let error as FetchError {
            return error
        }
    }

    private func kind(_ result: Result<FetchResponse, FetchError>?) -> FetchError.Kind? {
        guard case .failure(let error)? = result else { return nil }
        return error.kind
    }

    /// Percent-encodes a URL for use as the `to=` query value.
    private func query(_ s: String) -> String {
        s.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? s
    }

    // MARK: success

    func testFetchesBodyAndHeaders() async throws {
        let url = server.url("/feed.xml")
        let response = try await fetcher.fetch(FetchRequest(url: url, maxBytes: 50_000_000))
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.body, Array(feed.utf8))
        XCTAssertEqual(response.finalURL, url)
        XCTAssertFalse(response.permanentRedirect)
        XCTAssertEqual(response.redirects, 0)
        XCTAssertEqual(response.contentType, "application/rss+xml")
        XCTAssertEqual(response.charset, "utf-8")
        XCTAssertEqual(response.headers["content-length"], String(feed.utf8.count))
        XCTAssertNotNil(response.etag)
        XCTAssertEqual(response.etag, response.headers["etag"])
        XCTAssertNotNil(response.lastModified)
        XCTAssertFalse(response.notModified)
    }

    func testSendsUserAgentAndAcceptEncoding() async throws {
        let response = try await fetcher.fetch(FetchRequest(url: server.url("/echo"), maxBytes: 50_000_000))
        let headers = try JSONDecoder().decode([String: String].self, from: Data(response.body))
        XCTAssertEqual(headers["User-Agent"], "feedctl/0.1 (+https://github.com/feedctl/feedctl)")
        let encodings = Set((headers["Accept-Encoding"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        XCTAssertTrue(encodings.isSuperset(of: ["gzip", "deflate", "br"]), "\(encodings)")

        let custom = Fetcher(userAgent: "test-agent/1")
        let echoed = try await custom.fetch(FetchRequest(url: server.url("/echo"), maxBytes: 50_000_000))
        XCTAssertEqual(try JSONDecoder().decode([String: String].self, from: Data(echoed.body))["User-Agent"], "test-agent/1")
    }

    /// A request with a body is a POST of exactly those bytes (single sign-on's token request);
    /// its redirect is not followed (the body would go somewhere the caller did not name).
    func testABodyIsAPostWhoseRedirectIsNotFollowed() async throws {
        let form = "grant_type=authorization_code&code=a%2Bb"
        let response = try await fetcher.fetch(FetchRequest(url: server.url("/echo"), maxBytes: 50_000,
                                                            headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Array(form.utf8)))
        let echoed = try JSONDecoder().decode([String: String].self, from: Data(response.body))
        XCTAssertEqual(echoed["X-Echo-Method"], "POST")
        XCTAssertEqual(echoed["X-Echo-Body"], form)
        XCTAssertEqual(echoed["Content-Type"], "application/x-www-form-urlencoded")
        let plain = try await fetcher.fetch(FetchRequest(url: server.url("/echo"), maxBytes: 50_000))
        XCTAssertNil(try JSONDecoder().decode([String: String].self, from: Data(plain.body))["X-Echo-Method"], "no body: a GET")

        let redirect = server.url("/redirect/307?to=/echo")
        do {
            _ = try await fetcher.fetch(FetchRequest(url: redirect, maxBytes: 50_000, body: Array(form.utf8)))
            XCTFail("a POST was redirected")
        } catch {
            XCTAssertEqual(error.kind, .tooManyRedirects)
            XCTAssertEqual(error.description, "\(redirect): a POST is not redirected (HTTP 307 to \(server.url("/echo")))")
        }
    }

    func testValidatorsWithLineBreaksAreNotSent() async throws {
        let request = FetchRequest(url: server.url("/echo"), maxBytes: 50_000_000, etag: "\"a\"\r\nX-Injected: 1", lastModified: "Wed, 21 Oct 2015 07:28:00 GMT")
        let response = try await fetcher.fetch(request)
        let headers = try JSONDecoder().decode([String: String].self, from: Data(response.body))
        XCTAssertNil(headers["X-Injected"])
        XCTAssertNil(headers["If-None-Match"])
        XCTAssertEqual(headers["If-Modified-Since"], "Wed, 21 Oct 2015 07:28:00 GMT")
    }

    func testFetchBlocking() throws {
        let response = try fetcher.fetchBlocking(FetchRequest(url: server.url("/feed.xml"), maxBytes: 50_000_000))
        XCTAssertEqual(response.body, Array(feed.utf8))
        XCTAssertThrowsError(try fetcher.fetchBlocking(FetchRequest(url: server.url("/status/500"), maxBytes: 50_000_000))) { error in
            XCTAssertEqual((error as? FetchError)?.kind, .http(status: 500))
        }
    }

    func testHTMLPageIsAResponseWithItsType() async throws {
        let response = try await fetcher.fetch(FetchRequest(url: server.url("/html"), maxBytes: 50_000_000))
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.contentType, "text/html")
        XCTAssertEqual(response.charset, "utf-8")
        XCTAssertTrue(String(decoding: response.body, as: UTF8.self).hasPrefix("<!DOCTYPE html>"))
    }

    func testRangeFromOffset() async throws {
        let response = try await fetcher.fetch(FetchRequest(url: server.url("/feed.xml"), maxBytes: 50_000_000, rangeStart: 10))
        XCTAssertEqual(response.status, 206)
        XCTAssertEqual(response.body, Array(Array(feed.utf8)[10...]))
        XCTAssertEqual(response.headers["content-range"], "bytes 10-\(feed.utf8.count - 1)/\(feed.utf8.count)")
    }

    // MARK: conditional GET

    func testETagGives304() async throws {
        let url = server.url("/count/feed.xml")
        let first = try await fetcher.fetch(FetchRequest(url: url, maxBytes: 50_000_000))
        let etag = try XCTUnwrap(first.etag)
        let second = try await fetcher.fetch(FetchRequest(url: url, maxBytes: 50_000_000, etag: etag))
        XCTAssertEqual(second.status, 304)
        XCTAssertTrue(second.notModified)
        XCTAssertEqual(second.body, [])
        XCTAssertEqual(second.etag, etag)
        XCTAssertEqual(try server.stats().statuses("/count/feed.xml"), [200, 304])
    }

    func testLastModifiedGives304() async throws {
        let url = server.url("/count/feed.xml")
        let first = try await fetcher.fetch(FetchRequest(url: url, maxBytes: 50_000_000))
        let stamp = try XCTUnwrap(first.lastModified)
        let second = try await fetcher.fetch(FetchRequest(url: url, maxBytes: 50_000_000, lastModified: stamp))
        XCTAssertTrue(second.notModified)
        // A stale ETag makes the server ignore If-Modified-Since and send the body again.
        let third = try await fetcher.fetch(FetchRequest(url: url, maxBytes: 50_000_000, etag: "\"stale\"", lastModified: stamp))
        XCTAssertEqual(third.status, 200)
        XCTAssertEqual(third.body, Array(feed.utf8))
        XCTAssertEqual(try server.stats().statuses("/count/feed.xml"), [200, 304, 200])
    }

    func testGzipIsDecoded() async throws {
        let big = String(repeating: "<item><title>gzip me</title></item>\n", count: 2000)
        try server.write("big.xml", big)
        let response = try await fetcher.fetch(FetchRequest(url: server.url("/gzip/big.xml"), maxBytes: 50_000_000))
        XCTAssertEqual(response.headers["content-encoding"], "gzip")
        XCTAssertEqual(response.body, Array(big.utf8))
        let sent = try XCTUnwrap(server.stats().log.first { $0.path == "/gzip/big.xml" })
        XCTAssertEqual(sent.encoding, "gzip")
        XCTAssertLessThan(sent.sent, big.utf8.count / 10)  // the wire carried the compressed body
    }

    // MARK: redirects

    func testPermanentRedirectChain() async throws {
        let url = server.url("/redirect/301?to=" + query("/redirect/308?to=" + query("/feed.xml")))
        let response = try await fetcher.fetch(FetchRequest(url: url, maxBytes: 50_000_000))
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.finalURL, server.url("/feed.xml"))
        XCTAssertTrue(response.permanentRedirect)
        XCTAssertEqual(response.redirects, 2)
        XCTAssertEqual(response.body, Array(feed.utf8))
    }

    func testTemporaryRedirectInChainIsNotPermanent() async throws {
        let url = server.url("/redirect/301?to=" + query("/redirect/302?to=" + query("/feed.xml")))
        let response = try await fetcher.fetch(FetchRequest(url: url, maxBytes: 50_000_000))
        XCTAssertEqual(response.finalURL, server.url("/feed.xml"))
        XCTAssertFalse(response.permanentRedirect)
        XCTAssertEqual(response.redirects, 2)
        let direct = try await fetcher.fetch(FetchRequest(url: server.url("/redirect/302?to=/feed.xml"), maxBytes: 50_000_000))
        XCTAssertFalse(direct.permanentRedirect)
        XCTAssertEqual(direct.redirects, 1)
    }

    func testRedirectLoopIsTooManyRedirects() async throws {
        let url = server.url("/loop")
        let error = try await failure(FetchRequest(url: url, maxBytes: 50_000_000))
        XCTAssertEqual(error.kind, .tooManyRedirects)
        XCTAssertEqual(error.description, "\(url): too many redirects (5), looping at \(url)")
        XCTAssertEqual(try server.stats().hits["/loop"], 6)  // the first request + 5 redirects
    }

    func testRedirectLimitIsConfigurable() async throws {
        let url = server.url("/redirect/301?to=" + query("/redirect/308?to=" + query("/feed.xml")))
        let error = try await failure(FetchRequest(url: url, maxBytes: 50_000_000, maxRedirects: 1))
        XCTAssertEqual(error.kind, .tooManyRedirects)
        XCTAssertEqual(error.description, "\(url): too many redirects (1)")
    }

    func testRedirectToFileIsRefused() async throws {
        let url = server.url("/redirect/302?to=" + query("file:///etc/passwd"))
        let error = try await failure(FetchRequest(url: url, maxBytes: 50_000_000))
        XCTAssertEqual(error.kind, .protocolNotAllowed)
        XCTAssertEqual(error.description, "\(url): protocol file not allowed (only http and https) (redirected to file:///etc/passwd)")
    }

    // MARK: failures

    func testSlowBodyTimesOut() async throws {
        let url = server.url("/slow?bytes=100&delay=0.2")
        let error = try await failure(FetchRequest(url: url, maxBytes: 50_000_000, totalTimeout: 1))
        XCTAssertEqual(error.kind, .timeout)
        XCTAssertEqual(error.description, "\(url): timed out after 1 s")
    }

    func testStalledBodyTimesOut() async throws {
        let url = server.url("/slow?bytes=5&delay=30")
        let error = try await failure(FetchRequest(url: url, maxBytes: 50_000_000, totalTimeout: 50, stallTimeout: 1))
        XCTAssertEqual(error.kind, .timeout)
        XCTAssertEqual(error.description, "\(url): stalled: no data for 1 s")
    }

    func testTruncatedBodyIsAnError() async throws {
        let url = server.url("/truncated")
        let error = try await failure(FetchRequest(url: url, maxBytes: 50_000_000))
        XCTAssertEqual(error.kind, .truncated)
        XCTAssertEqual(error.description, "\(url): connection closed after 100 of 1000 bytes")
    }

    func test429CarriesRetryAfter() async throws {
        let url = server.url("/status/429?retry_after=120")
        let error = try await failure(FetchRequest(url: url, maxBytes: 50_000_000))
        XCTAssertEqual(error.kind, .http(status: 429))
        XCTAssertEqual(error.retryAfter, 120)
        XCTAssertEqual(error.description, "\(url): HTTP 429 Too Many Requests (retry after 120 s)")
    }

    func test503RetryAfterAsHTTPDate() async throws {
        let url = server.url("/status/503?retry_after_in=3600")
        let error = try await failure(FetchRequest(url: url, maxBytes: 50_000_000))
        XCTAssertEqual(error.kind, .http(status: 503))
        // An HTTP-date has whole seconds and the clock moves on: 3600 s from the server's "now".
        let seconds = try XCTUnwrap(error.retryAfter)
        XCTAssertTrue((3590...3600).contains(seconds), "\(seconds)")
        XCTAssertTrue(error.description.hasPrefix("\(url): HTTP 503 Service Unavailable (retry after "), error.description)
    }

    func test500IsAnError() async throws {
        let url = server.url("/status/500")
        let error = try await failure(FetchRequest(url: url, maxBytes: 50_000_000))
        XCTAssertEqual(error.kind, .http(status: 500))
        XCTAssertNil(error.retryAfter)
        XCTAssertEqual(error.description, "\(url): HTTP 500 Internal Server Error")
    }

    func testNotFoundAfterRedirectNamesTheTarget() async throws {
        let url = server.url("/redirect/301?to=/missing.xml")
        let error = try await failure(FetchRequest(url: url, maxBytes: 50_000_000))
        XCTAssertEqual(error.kind, .http(status: 404))
        XCTAssertEqual(error.description, "\(url): HTTP 404 Not Found (redirected to \(server.url("/missing.xml")))")
    }

    func testAnnouncedTooLargeStopsEarly() async throws {
        let url = server.url("/big?mb=500")
        let error = try await failure(FetchRequest(url: url, maxBytes: 1_000_000))
        XCTAssertEqual(error.kind, .tooLarge)
        XCTAssertEqual(error.description, "\(url): response larger than 1 MB")
        let sent = try XCTUnwrap(server.stats(afterLogging: 1, of: "/big").log.first { $0.path == "/big" }).sent
        XCTAssertLessThan(sent, 100_000_000)  // the server gave up long before 500 MB
    }

    func testStreamedTooLargeStopsEarly() async throws {
        let url = server.url("/big?mb=500&chunked=1")  // no Content-Length: caught while streaming
        let error = try await failure(FetchRequest(url: url, maxBytes: 2_000_000))
        XCTAssertEqual(error.kind, .tooLarge)
        XCTAssertEqual(error.description, "\(url): response larger than 2 MB")
        let sent = try XCTUnwrap(server.stats(afterLogging: 1, of: "/big").log.first { $0.path == "/big" }).sent
        XCTAssertLessThan(sent, 100_000_000)
    }

    func testCapCountsDecodedBytes() async throws {
        try server.write("zeros.xml", String(repeating: "0", count: 5_000_000))  // ~5 kB gzipped
        let url = server.url("/gzip/zeros.xml")
        let error = try await failure(FetchRequest(url: url, maxBytes: 1_000_000))
        XCTAssertEqual(error.kind, .tooLarge)
        XCTAssertEqual(error.description, "\(url): response larger than 1 MB")
        let entry = try XCTUnwrap(server.stats(afterLogging: 1, of: "/gzip/zeros.xml").log.first { $0.path == "/gzip/zeros.xml" })
        XCTAssertLessThan(entry.sent, 1_000_000)  // small on the wire: the cap is on what it inflates to
    }

    func testOtherProtocolsAreRefused() async throws {
        for url in ["file:///etc/passwd", "ftp://127.0.0.1:\(server.port)/feed.xml", "gopher://127.0.0.1/"] {
            let error = try await failure(FetchRequest(url: url, maxBytes: 50_000_000))
            XCTAssertEqual(error.kind, .protocolNotAllowed)
            let scheme = url.prefix { $0 != ":" }
            XCTAssertEqual(error.description, "\(url): protocol \(scheme) not allowed (only http and https)")
        }
    }

    func testInvalidURLs() async throws {
        for url in ["", "not a url", "http://127.0.0.1/a b", "/relative/feed.xml"] {
            let error = try await failure(FetchRequest(url: url, maxBytes: 50_000_000))
            XCTAssertEqual(error.kind, .invalidURL, url)
        }
    }

    func testConnectionRefused() async throws {
        let port = server.port
        server.stop()  // nothing listens on its port any more
        let url = "http://127.0.0.1:\(port)/feed.xml"
        let error = try await failure(FetchRequest(url: url, maxBytes: 50_000_000))
        XCTAssertEqual(error.kind, .connection)
        XCTAssertEqual(error.description, "\(url): connection refused")
    }

    func testConnectTimeout() async throws {
        let blackhole = try XCTUnwrap(FullBacklogPort())
        let url = "http://127.0.0.1:\(blackhole.port)/feed.xml"
        let error = try await failure(FetchRequest(url: url, maxBytes: 50_000_000, connectTimeout: 1))
        XCTAssertEqual(error.kind, .timeout)
        XCTAssertEqual(error.description, "\(url): connect timed out after 1 s")
    }

    func testSelfSignedCertificateIsRefused() async throws {
        let tlsServer = try TestHTTPServer(tls: true)
        defer { tlsServer.stop() }
        try tlsServer.write("feed.xml", feed)
        let url = tlsServer.url("/feed.xml")
        let error = try await failure(FetchRequest(url: url, maxBytes: 50_000_000))
        XCTAssertEqual(error.kind, .tls)
        XCTAssertTrue(error.description.hasPrefix("\(url): TLS failed: SSL certificate problem: self"), error.description)
        XCTAssertEqual(try tlsServer.stats().hits["/feed.xml"], nil)  // no request went out
    }

    func testUnresolvableHost() async throws {
        let url = "http://feedctl-test.invalid/feed.xml"  // .invalid never resolves (RFC 6761)
        let error = try await failure(FetchRequest(url: url, maxBytes: 50_000_000, connectTimeout: 5))
        XCTAssertEqual(error.kind, .cannotResolveHost)
        XCTAssertEqual(error.description, "\(url): cannot resolve host")
    }

    func testCancellingTheTaskAbortsTheTransfer() async throws {
        let url = server.url("/slow?bytes=100&delay=1")
        let fetcher = self.fetcher
        let task = Task { try await fetcher.fetch(FetchRequest(url: url, maxBytes: 50_000_000)) }
        task.cancel()
        do {
            _ = try await task.value
            XCTFail("expected cancellation")
        } catch let error as FetchError {
            XCTAssertEqual(error.kind, .cancelled)
        }
    }

    func testCancellingAnActiveTransferAbortsIt() async throws {
        let url = server.url("/slow?bytes=100&delay=0.2")  // 20 s if left alone
        let fetcher = self.fetcher
        let task = Task { try await fetcher.fetch(FetchRequest(url: url, maxBytes: 50_000_000, totalTimeout: 15)) }
        var polls = 0
        while try server.stats().hits["/slow"] == nil, polls < 200 {  // until the request is in flight
            try await Task.sleep(for: .milliseconds(50))
            polls += 1
        }
        task.cancel()
        do {
            _ = try await task.value
            XCTFail("expected cancellation")
        } catch let error as FetchError {
            XCTAssertEqual(error.kind, .cancelled)  // a missed cancel would be a timeout instead
            XCTAssertEqual(error.description, "\(url): cancelled")
        }
        let entry = try XCTUnwrap(server.stats(afterLogging: 1, of: "/slow").log.first { $0.path == "/slow" })
        XCTAssertLessThan(entry.sent, 100)  // the server saw the client hang up
    }

    // MARK: many at once

    func testFiftyConcurrentFetchesAreBoundedAndReuseConnections() async throws {
        let fetcher = Fetcher(concurrency: 4)
        // Slow enough that requests overlap, so the bound is what limits them.
        let requests = (0..<50).map { FetchRequest(url: server.url("/slow?bytes=3&delay=0.02&n=\($0)"), maxBytes: 50_000_000) }
        var seen = Set<Int>()
        for await (index, result) in fetcher.fetchAll(requests) {
            XCTAssertTrue(seen.insert(index).inserted, "index \(index) twice")
            XCTAssertEqual(try result.get().body, Array("xxx".utf8))
        }
        XCTAssertEqual(seen, Set(0..<50))
        let stats = try server.stats()
        XCTAssertEqual(stats.hits["/slow"], 50)
        XCTAssertLessThanOrEqual(stats.max_inflight, 4)
        // 50 requests over a handful of kept-alive connections (+1 for this stats request).
        XCTAssertLessThanOrEqual(stats.connections, 2 * 4 + 1)
    }

    func testStreamKeepsATemporaryFetcherAlive() async throws {
        let requests = (0..<6).map { _ in FetchRequest(url: server.url("/feed.xml"), maxBytes: 50_000_000) }
        var bodies = 0
        for await (_, result) in Fetcher(concurrency: 2).fetchAll(requests) {
            XCTAssertEqual(try result.get().body, Array(feed.utf8))
            bodies += 1
        }
        XCTAssertEqual(bodies, 6)
    }

    func testLeavingAStreamEarlyAbortsTheRest() async throws {
        let requests = [FetchRequest(url: server.url("/feed.xml"), maxBytes: 50_000_000)]
            + (0..<3).map { _ in FetchRequest(url: server.url("/slow?bytes=100&delay=0.2"), maxBytes: 50_000_000, totalTimeout: 15) }
        for await (index, result) in fetcher.fetchAll(requests) {
            XCTAssertEqual(index, 0)  // the only fast one comes first
            XCTAssertEqual(try result.get().body, Array(feed.utf8))
            var polls = 0
            while try server.stats().hits["/slow"] != 3, polls < 200 {  // until all three are in flight
                try await Task.sleep(for: .milliseconds(50))
                polls += 1
            }
            break
        }
        let stats = try server.stats(afterLogging: 3, of: "/slow")
        XCTAssertEqual(stats.log.filter { $0.path == "/slow" }.map { $0.sent < 100 }, [true, true, true])
    }

    func testFetchAllReportsEachResultAtItsIndex() async throws {
        let urls = [server.url("/feed.xml"), server.url("/status/500"), "ftp://x/", server.url("/html")]
        var results: [Int: Result<FetchResponse, FetchError>] = [:]
        for await (index, result) in fetcher.fetchAll(urls.map { FetchRequest(url: $0, maxBytes: 50_000_000) }) { results[index] = result }
        XCTAssertEqual(results.count, 4)
        XCTAssertEqual(try results[0]?.get().body, Array(feed.utf8))
        XCTAssertEqual(kind(results[1]), .http(status: 500))
        XCTAssertEqual(kind(results[2]), .protocolNotAllowed)
        XCTAssertEqual(try results[3]?.get().contentType, "text/html")
        var none = 0
        for await _ in fetcher.fetchAll([]) { none += 1 }
        XCTAssertEqual(none, 0)
    }
}
