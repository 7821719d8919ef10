@testable import APIServer
import Foundation
import XCTest

/// What every exchange gets whatever the route (`HTTPRulesMiddleware`, `addMethodNotAllowed`;
/// issue 26's audit): the protective headers on every answer, errors and the login's included;
/// 405 with `Allow` for a method a path does not take (TRACE was 404); exactly one `Host`.
final class HTTPRulesTests: XCTestCase {
    private func port(_ h: APIHarness) throws -> Int { try XCTUnwrap(Int(h.base.split(separator: ":").last ?? "")) }

    /// A request written by hand; the answer's status line and header fields (lowercased names).
    private func raw(_ h: APIHarness, _ request: String) throws -> (status: String, headers: [String: String]) {
        let answer = try XCTUnwrap(try RawConnection(port: port(h)).exchange(request), "no answer to \(request)")
        let head = answer.components(separatedBy: "\r\n\r\n")[0].split(separator: "\r\n")
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return (String(head.first ?? ""), headers)
    }

    func testEveryAnswerCarriesTheProtectiveHeaders() async throws {
        let h = try await APIHarness(logins: true)
        let answers = [
            try await h.call("GET", "/health"),
            try await h.call("POST", "/api/auth/login", body: #"{"username": "nobody", "password": "wrong password"}"#),
            try await h.call("GET", "/api/feed"),
            try await h.call("GET", "/no/such/route"),
            try await h.call("DELETE", "/health"),
            try await h.call("POST", "/api/auth/login", body: "{"),
        ]
        XCTAssertEqual(answers.map(\.status), [200, 200, 401, 404, 405, 400])
        for answer in answers {
            XCTAssertEqual(answer.headers["x-content-type-options"], "nosniff", answer.text)
            XCTAssertEqual(answer.headers["x-frame-options"], "DENY", answer.text)
            XCTAssertEqual(answer.headers["cache-control"], "no-store", answer.text)
        }
    }

    func testAMethodAPathDoesNotTakeIs405WithAllow() async throws {
        let h = try await APIHarness()
        let trace = try raw(h, "TRACE /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        XCTAssertEqual(trace.status, "HTTP/1.1 405 Method Not Allowed")
        XCTAssertEqual(trace.headers["allow"], "GET")
        let delete = try await h.call("DELETE", "/api/feed")
        XCTAssertEqual(delete.status, 405)
        XCTAssertEqual(delete.headers["allow"], "GET")
        let channel = try await h.call("PATCH", "/api/channels/5")
        XCTAssertEqual(channel.status, 405)
        XCTAssertEqual(channel.headers["allow"], "DELETE, GET, PUT")
        XCTAssertEqual(try channel.object()["detail"] as? String, "PATCH is not served here: this path takes DELETE, GET, PUT")
        XCTAssertEqual(try raw(h, "TRACE /no/such/route HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").status,
                       "HTTP/1.1 404 Not Found", "a path nobody serves is still not found")
        let health = try await h.call("GET", "/health")
        XCTAssertEqual(health.status, 200)
    }

    func testARequestNeedsExactlyOneHost() async throws {
        let h = try await APIHarness()
        XCTAssertEqual(try raw(h, "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").status, "HTTP/1.1 200 OK")
        let missing = try raw(h, "GET /health HTTP/1.1\r\nConnection: close\r\n\r\n")
        XCTAssertEqual(missing.status, "HTTP/1.1 400 Bad Request")
        XCTAssertEqual(missing.headers["x-content-type-options"], "nosniff")
        XCTAssertEqual(try raw(h, "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n").status,
                       "HTTP/1.1 400 Bad Request")
        XCTAssertEqual(try raw(h, "GET /api/feed HTTP/1.1\r\nHost: a\r\nhost: a\r\nConnection: close\r\n\r\n").status,
                       "HTTP/1.1 400 Bad Request", "the same name twice, in any case")
        XCTAssertEqual(try raw(h, "GET /health HTTP/1.0\r\nConnection: close\r\n\r\n").status, "HTTP/1.1 400 Bad Request", "HTTP/1.0 sends Host too")
    }
}
