import XCTest
@testable import HTTPFetch

/// The header parsing behind FetchResponse and FetchError, without a network.
final class FetchHeaderTests: XCTestCase {
    func testContentType() {
        XCTAssertEqual(HeaderValue.contentType("text/xml; charset=\"UTF-8\"").mediaType, "text/xml")
        XCTAssertEqual(HeaderValue.contentType("text/xml; charset=\"UTF-8\"").charset, "utf-8")
        XCTAssertEqual(HeaderValue.contentType("Application/RSS+XML;Charset=ISO-8859-1 ").charset, "iso-8859-1")
        XCTAssertEqual(HeaderValue.contentType("Application/RSS+XML;Charset=ISO-8859-1 ").mediaType, "application/rss+xml")
        XCTAssertNil(HeaderValue.contentType("text/html; boundary=x").charset)
        XCTAssertNil(HeaderValue.contentType("text/html; charset=").charset)
        XCTAssertNil(HeaderValue.contentType("").mediaType)
    }

    func testRetryAfter() {
        let now: Int64 = 1_445_412_000  // Wed, 21 Oct 2015 07:20:00 GMT
        XCTAssertEqual(HeaderValue.retryAfter("120", now: now), 120)
        XCTAssertEqual(HeaderValue.retryAfter(" 0 ", now: now), 0)
        XCTAssertEqual(HeaderValue.retryAfter("Wed, 21 Oct 2015 07:28:00 GMT", now: now), 480)
        XCTAssertEqual(HeaderValue.retryAfter("Wed, 21 Oct 2015 07:00:00 GMT", now: now), 0)  // past
        XCTAssertNil(HeaderValue.retryAfter("soon", now: now))
        XCTAssertNil(HeaderValue.retryAfter("-5", now: now))
        XCTAssertNil(HeaderValue.retryAfter("", now: now))
        XCTAssertEqual(HeaderValue.retryAfter("99999999999999999999", now: now), 999_999_999)
    }

    func testResponseHeadKeepsOnlyTheLastResponse() {
        var head = ResponseHead()
        for line in ["HTTP/1.1 301 Moved Permanently\r\n", "Location: /b\r\n", "ETag: \"old\"\r\n", "\r\n",
                     "HTTP/2 200\r\n", "etag: \"new\"\r\n", "Set-Cookie: a=1\r\n", "set-cookie: b=2\r\n", "\r\n"] {
            head.consume(line)
        }
        XCTAssertEqual(head.value("ETag"), "\"new\"")
        XCTAssertNil(head.value("location"))
        XCTAssertEqual(head.reason, "")
        XCTAssertEqual(head.dictionary, ["etag": "\"new\"", "set-cookie": "a=1, b=2"])
    }

    func testErrorMessages() {
        XCTAssertEqual(FetchError.seconds(10), "10 s")
        XCTAssertEqual(FetchError.seconds(1.5), "1.5 s")
        XCTAssertEqual(FetchError.size(50_000_000), "50 MB")
        XCTAssertEqual(FetchError.size(1234), "1234 bytes")
        XCTAssertEqual(FetchError(url: "https://x/feed.xml", kind: .timeout, reason: "timed out after 10 s").description,
                       "https://x/feed.xml: timed out after 10 s")
    }

    func testURLCheck() {
        XCTAssertNil(Transfer.checkURL("https://example.com/feed"))
        XCTAssertNil(Transfer.checkURL("HTTP://example.com/feed"))
        XCTAssertEqual(Transfer.checkURL("file:///etc/passwd")?.kind, .protocolNotAllowed)
        XCTAssertEqual(Transfer.checkURL("http://a/\r\nX-Injected: 1")?.kind, .invalidURL)
        XCTAssertEqual(Transfer.checkURL("example.com/feed")?.kind, .invalidURL)
    }
}
