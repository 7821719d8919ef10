import APIServer
import Foundation
import XCTest

/// Issue 26, item 7: cross-site writes. A page on another site (or a name rebound to this
/// machine) must not make a browser subscribe, create collections or start playback; the CLI,
/// curl, the iOS app and gpodder clients, which send no `Origin`, go on as before.
final class CrossSiteTests: XCTestCase {
    /// JSON routes take only `application/json`: a form or `text/plain`, which any page may post
    /// without asking the server, is 415 and changes nothing.
    func testAJSONRouteRefusesAFormOrPlainText() async throws {
        let h = try await APIHarness()
        let body = #"{"name": "Later"}"#
        for type in ["text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"] {
            let reply = try await h.call("POST", "/api/collections", body: body, headers: ["Content-Type": type])
            XCTAssertEqual(reply.status, 415, "\(type): \(reply.text)")
            XCTAssertEqual(try reply.object()["detail"] as? String, "send the body as JSON, with Content-Type: application/json (not \(type))")
        }
        let collections = try await h.object("GET", "/api/collections")
        XCTAssertEqual(collections["total"] as? Int, 0, "\(collections)")
        for type in ["application/json", "application/json; charset=utf-8", "Application/JSON"] {
            let reply = try await h.call("POST", "/api/collections", body: #"{"name": "\#(type)"}"#, headers: ["Content-Type": type])
            XCTAssertTrue((200..<300).contains(reply.status), "\(type): \(reply.status) \(reply.text)")
        }
    }

    /// A write with another site's `Origin` is refused; the server's own origin, the `--cors`
    /// origin and requests without `Origin` are not. Reads are not writes.
    func testAWriteFromAnotherSiteIsRefused() async throws {
        let h = try await APIHarness(configuration: ServerConfiguration(host: "127.0.0.1", port: 0, open: true, corsOrigin: "https://app.example",
                                                                       allowPrivateFeeds: true, version: "test"))
        let port = try XCTUnwrap(URL(string: h.base)?.port)
        let subscribe = #"{"url": "\#(h.feeds.url("/podcast.xml"))"}"#
        for origin in ["https://evil.example", "http://127.0.0.1.evil.example:\(port)", "null", "http://localhost:\(port + 1)"] {
            let reply = try await h.call("POST", "/api/subscriptions", body: subscribe, headers: ["Origin": origin])
            XCTAssertEqual(reply.status, 403, "\(origin): \(reply.text)")
            XCTAssertEqual(try reply.object()["detail"] as? String, "a write from another site (Origin \(origin)) is refused: "
                           + "only pages of this server or https://app.example may write (feedctl serve --cors ORIGIN allows one)")
            let play = try await h.call("POST", "/api/player/pause", headers: ["Origin": origin])
            XCTAssertEqual(play.status, 403, "\(origin): \(play.text)")
        }
        XCTAssertEqual(try h.feeds.stats().hits["/podcast.xml"] ?? 0, 0, "nothing was fetched for them")
        let read = try await h.call("GET", "/api/subscriptions", headers: ["Origin": "https://evil.example"])
        XCTAssertEqual(read.status, 200, "a read is not a write (and without CORS the page cannot read the answer)")

        let fromItself = try await h.call("POST", "/api/collections", body: #"{"name": "A"}"#, headers: ["Origin": "http://127.0.0.1:\(port)"])
        XCTAssertTrue((200..<300).contains(fromItself.status), fromItself.text)
        let fromTheApp = try await h.call("POST", "/api/collections", body: #"{"name": "B"}"#, headers: ["Origin": "https://app.example"])
        XCTAssertTrue((200..<300).contains(fromTheApp.status), fromTheApp.text)
        let noOrigin = try await h.call("POST", "/api/collections", body: #"{"name": "C"}"#)
        XCTAssertTrue((200..<300).contains(noOrigin.status), noOrigin.text)
    }

    /// `--open` answers only requests sent to a loopback name: a name rebound to 127.0.0.1 by
    /// another site's DNS reaches nothing, reads included, unless `--allowed-host` names it.
    func testOpenModeAnswersOnlyLoopbackHostNames() async throws {
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, open: true, allowPrivateFeeds: true, version: "test")
        configuration.allowedHosts = ["feeds.home"]
        let h = try await APIHarness(configuration: configuration)
        let port = try XCTUnwrap(URL(string: h.base)?.port)
        for host in ["localhost:\(port)", "127.0.0.1:\(port)", "[::1]:\(port)", "LOCALHOST", "127.0.0.1", "feeds.home:\(port)"] {
            let reply = try await h.curl("GET", "/api/feed", headers: ["Host": host])
            XCTAssertEqual(reply.status, 200, "\(host): \(reply.text)")
        }
        for host in ["rebound.evil.example:\(port)", "evil.example", "127.0.0.1.evil.example:\(port)", "localhost.evil.example"] {
            let reply = try await h.curl("GET", "/api/feed", headers: ["Host": host])
            XCTAssertEqual(reply.status, 403, "\(host): \(reply.text)")
            XCTAssertEqual(try reply.object()["detail"] as? String, "this server runs with --open and answers only requests to "
                           + "localhost, 127.0.0.1 or [::1] (not \"\(host)\"); --allowed-host NAME adds a name")
            let write = try await h.curl("POST", "/api/collections", body: #"{"name": "X"}"#, headers: ["Host": host])
            XCTAssertEqual(write.status, 403, "\(host): \(write.text)")
        }
        // With logins, the Host is the admin's business (a reverse proxy's name, any address).
        let withLogins = try await APIHarness(logins: true)
        let health = try await withLogins.curl("GET", "/health", headers: ["Host": "feeds.example.org"])
        XCTAssertEqual(health.status, 200, health.text)
    }
}
