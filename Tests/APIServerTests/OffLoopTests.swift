@testable import APIServer
import Foundation
import NIOPosix
import TestSupport
import XCTest

/// Long work runs off the event loops (`OffLoopMiddleware`; issue 26: a 34 MB feed subscribed
/// through the API stalled `/health` for 2.3 s). The server here has one event loop, and the
/// test holds a long route's work where it reads the clock (the thread it runs on blocks until
/// the test lets it go): had that work run on the loop, nothing else could be answered.
final class OffLoopTests: XCTestCase {
    private func healthWhileHeld(_ method: String, _ path: String, body: String? = nil) async throws {
        let loops = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let h = try await APIHarness(loops: loops)
        let port = try XCTUnwrap(Int(h.base.split(separator: ":").last ?? ""))
        let release = h.clock.hold()
        let long = Task { try await h.call(method, path, body: body) }
        XCTAssertTrue(h.clock.held(within: 30), "\(method) \(path) read the clock")
        let health = try RawConnection(port: port).exchange("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
                                                            within: 20)
        release.signal()
        XCTAssertEqual(health?.split(separator: "\r\n").first, "HTTP/1.1 200 OK", "/health while \(method) \(path) is held")
        let reply = try await long.value
        XCTAssertLessThan(reply.status, 300, "\(method) \(path): \(reply.text)")
    }

    func testHealthAnswersWhileAChannelGroupedFeedIsBuilt() async throws {
        try await healthWhileHeld("GET", "/api/feed/by-channel")
    }

    func testHealthAnswersWhileAnOPMLImportIsParsedAndSynced() async throws {
        let opml = #"<?xml version="1.0"?><opml version="2.0"><body><outline text="x" xmlUrl="http://127.0.0.1:1/feed.xml"/></body></opml>"#
        try await healthWhileHeld("POST", "/api/subscriptions/opml", body: opml)
    }

    /// Every route named off the loop is one the server serves (a renamed route would silently
    /// run on the loop again).
    func testTheRoutesNamedAreServed() async throws {
        let configuration = ServerConfiguration(host: "127.0.0.1", port: 0, open: true)
        let database = try await TestDatabase.make()
        let served = Set(try APIServer.routes(configuration: configuration, authenticator: OpenOwner(library: database.owner)))
        XCTAssertEqual(OffLoopMiddleware.routes.subtracting(served).sorted(), [])
    }
}
