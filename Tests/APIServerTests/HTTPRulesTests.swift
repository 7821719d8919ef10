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
        XCTAssertEqual(trace.headers["allow"], "GET, HEAD")
        let delete = try await h.call("DELETE", "/api/feed")
        XCTAssertEqual(delete.status, 405)
        XCTAssertEqual(delete.headers["allow"], "GET, HEAD")
        let channel = try await h.call("PATCH", "/api/channels/5")
        XCTAssertEqual(channel.status, 405)
        XCTAssertEqual(channel.headers["allow"], "DELETE, GET, HEAD, PUT")
        XCTAssertEqual(try channel.object()["detail"] as? String, "PATCH is not served here: this path takes DELETE, GET, HEAD, PUT")
        XCTAssertEqual(try raw(h, "TRACE /no/such/route HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").status,
                       "HTTP/1.1 404 Not Found", "a path nobody serves is still not found")
        let health = try await h.call("GET", "/health")
        XCTAssertEqual(health.status, 200)
    }

    /// HEAD answers what GET would, without the body (monitors and balancers check /health so),
    /// behind the same login; a stream's HEAD opens no stream (past the 16 a user may hold).
    func testHeadAnswersAsGetWithoutABody() async throws {
        let h = try await APIHarness(logins: true, events: true)
        let health = try raw(h, "HEAD /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        XCTAssertEqual(health.status, "HTTP/1.1 200 OK")
        XCTAssertEqual(health.headers["content-type"], "application/json; charset=utf-8")
        let anonymous = try await h.call("HEAD", "/api/feed")
        XCTAssertEqual(anonymous.status, 401, "no login, no feed")
        _ = try await h.addUser("ann", password: "ann's password", admin: false)
        let token = try await h.login("ann", "ann's password")
        let feed = try await h.call("HEAD", "/api/feed", token: token)
        XCTAssertEqual(feed.status, 200)
        XCTAssertEqual(feed.text, "")
        let get = try await h.call("GET", "/api/feed", token: token)
        XCTAssertEqual(feed.headers["content-length"], get.headers["content-length"])
        for _ in 0..<20 {
            let events = try await h.call("HEAD", "/api/events", token: token)
            XCTAssertEqual(events.status, 200)
            XCTAssertEqual(events.headers["content-type"], "text/event-stream")
        }
        let stream = try EventStream(port: h.port, path: "/api/events", headers: ["Authorization": "Bearer \(token)"])
        defer { stream.close() }
        XCTAssertNotNil(EventStreamTests.position(stream.read(until: EventStreamTests.firstMessage, timeout: 10)), "no place was taken by a HEAD")
        let delete = try await h.call("DELETE", "/health")
        XCTAssertEqual(delete.headers["allow"], "GET, HEAD")
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
