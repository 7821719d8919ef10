@testable import APIServer
import Accounts
import Hummingbird
import XCTest

/// Which token a request presents (`TokenAuthenticator.token(in:)`, read on every request).
final class TokenHeaderTests: XCTestCase {
    private func token(authorization: String? = nil, cookie: String? = nil) -> SessionToken? {
        var headers = HTTPFields()
        if let authorization { headers[.authorization] = authorization }
        if let cookie { headers[.cookie] = cookie }
        let request = Request(head: HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1", path: "/api/feed", headerFields: headers),
                              body: RequestBody(buffer: ByteBuffer()))
        return TokenAuthenticator.token(in: request)
    }

    private func presented(_ text: String) -> SessionToken { SessionToken(presented: text) }

    func testTheBearerTokenInAnyCaseElseTheCookie() {
        XCTAssertEqual(token(authorization: "Bearer abc"), presented("abc"))
        XCTAssertEqual(token(authorization: "bearer abc"), presented("abc"))
        XCTAssertEqual(token(authorization: "BEARER abc"), presented("abc"))
        XCTAssertEqual(token(authorization: "Bearer abc", cookie: "session_token=def"), presented("abc"), "the bearer token first")
        XCTAssertEqual(token(authorization: "Bearer ", cookie: "session_token=def"), presented("def"), "no bearer token: the cookie")
        XCTAssertEqual(token(authorization: "Basic YWxpY2U6eA==", cookie: "a=1; session_token=def"), presented("def"))
        XCTAssertEqual(token(cookie: "session_token=def"), presented("def"))
        XCTAssertNil(token(authorization: "Bearerabc"))
        XCTAssertNil(token(authorization: "Bearers abc"))
        XCTAssertNil(token(cookie: "session_token="))
        XCTAssertNil(token())
        XCTAssertNil(token(authorization: "Bearer " + String(repeating: "a", count: 513)), "longer than any token we make")
        XCTAssertNotNil(token(authorization: "Bearer " + String(repeating: "a", count: 512)))
    }
}
