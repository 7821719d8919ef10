import APIServer
import Foundation
import XCTest

/// `/api/openapi.json` covers the API: every route in it is served, and every route served is in it.
final class OpenAPITests: XCTestCase {
    func testTheDocumentAndTheRoutesAgree() async throws {
        let h = try await APIHarness()
        let document = try await h.object("GET", "/api/openapi.json")
        XCTAssertEqual(document["openapi"] as? String, "3.1.0")
        let paths = try XCTUnwrap(document["paths"] as? [String: [String: Any]])
        let documented = Set(paths.flatMap { path, operations in operations.keys.map { "\($0.uppercased()) \(path)" } })

        let configuration = ServerConfiguration(host: "127.0.0.1", port: 0, open: true)
        let served = Set(try APIServer.routes(configuration: configuration, authenticator: OpenOwner(library: h.owner)))
        XCTAssertEqual(served.subtracting(documented).sorted(), [], "served but not documented")
        XCTAssertEqual(documented.subtracting(served).sorted(), [], "documented but not served")
        XCTAssertGreaterThan(served.count, 40)

        // And each documented operation answers on a running server as a route (never "no such
        // route" or a wrong method); the events stream is read by curl elsewhere.
        for operation in documented.sorted() where !operation.hasSuffix("/api/player/events") {
            let parts = operation.split(separator: " ")
            let method = String(parts[0])
            let path = String(parts[1]).replacingOccurrences(of: "{id}", with: "999999")
                .replacingOccurrences(of: "{user}", with: "nobody").replacingOccurrences(of: "{device}", with: "phone")
                .replacingOccurrences(of: #"\{[a-z_]+\}"#, with: "999999", options: .regularExpression)
            let body = ["POST", "PUT", "PATCH"].contains(method) ? "{}" : nil
            let reply = path.hasPrefix("/api/2/") ? try await h.curl(method, path, body: body) : try await h.call(method, path, body: body)
            XCTAssertNotEqual(reply.status, 405, operation)
            XCTAssertNotEqual(reply.status, 500, "\(operation): \(reply.text)")
            // (A HEAD's answer has no body to say which 404 it is; a page's 404 is HTML, which no
            // missing route answers: a browser's page no route serves gets the web app's shell.)
            if reply.status == 404, method != "HEAD", reply.headers["content-type"]?.hasPrefix("text/html") != true {
                XCTAssertNotEqual(try reply.object()["detail"] as? String, "no such route", operation)
            }
        }
    }
}
