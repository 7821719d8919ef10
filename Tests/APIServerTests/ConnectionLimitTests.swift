@testable import APIServer
import FeedModel
import Foundation
import NIOCore
import XCTest

/// `ConnectionLimits` on real sockets (issue 26: 1,000 slowloris connections were kept for 30 s,
/// idle ones for 95 s and more, and 20,000 idle connections made `/health` time out for
/// everyone). The times are shortened for the tests; the only timing checked is "closed within
/// a generous bound".
final class ConnectionLimitTests: XCTestCase {
    /// The server with `policy` (short times), its port.
    private func server(_ policy: ConnectionPolicy, afterStorm: @escaping @Sendable () -> Void = {}) async throws -> (APIHarness, Int) {
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, open: true, allowPrivateFeeds: true, version: "test")
        configuration.connections = policy
        let h = try await APIHarness(configuration: configuration, afterStorm: afterStorm)
        return (h, try XCTUnwrap(Int(h.base.split(separator: ":").last ?? "")))
    }

    /// `/health` asked on a connection of its own, from `address`; its status line.
    private func health(_ port: Int, from address: String = "127.0.0.2") throws -> String? {
        let answer = try RawConnection(port: port, from: address)
            .exchange("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        return answer?.split(separator: "\r\n").first.map(String.init)
    }

    func testTheDefaultsAreTheRules() {
        let policy = ServerConfiguration().connections
        XCTAssertEqual(policy, ConnectionPolicy(idle: .seconds(Int64(ConnectionLimits.idleSeconds)), head: .seconds(Int64(ConnectionLimits.headSeconds)),
                                                body: .seconds(Int64(ConnectionLimits.bodySeconds)),
                                                maxPerAddress: ConnectionLimits.maxPerAddress, stormConnections: ConnectionLimits.stormConnections))
    }

    func testAnIdleConnectionIsClosedAndOthersAreServed() async throws {
        let (h, port) = try await server(ConnectionPolicy(idle: .seconds(1), head: .seconds(60), body: .seconds(60)))
        let idle = try RawConnection(port: port)
        XCTAssertEqual(try health(port), "HTTP/1.1 200 OK")
        XCTAssertTrue(idle.closed(within: 20), "an idle connection is closed")
        XCTAssertTrue(idle.received.isEmpty, "without an answer")
        // A connection that was answered and then sits idle goes the same way.
        let kept = try RawConnection(port: port)
        XCTAssertTrue(kept.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
        XCTAssertTrue(kept.closed(within: 20))
        XCTAssertTrue(String(decoding: kept.received, as: UTF8.self).hasPrefix("HTTP/1.1 200"), "answered first")
        _ = h
    }

    func testAHeadSentAByteAtATimeIsCutOff() async throws {
        let (h, port) = try await server(ConnectionPolicy(idle: .seconds(60), head: .seconds(1), body: .seconds(60)))
        let slow = try RawConnection(port: port)
        let head = Array("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: \(String(repeating: "a", count: 400))\r\n\r\n")
        var sent = 0
        var closed = false
        for byte in head {
            guard slow.send(String(byte)) else { closed = true; break }
            sent += 1
            if slow.closed(within: 0.1) { closed = true; break }
        }
        XCTAssertTrue(closed, "the slowloris head was sent whole (\(sent) bytes) without the server closing")
        XCTAssertLessThan(sent, head.count)
        XCTAssertEqual(try health(port), "HTTP/1.1 200 OK")
        _ = h
    }

    func testABodySentAByteAtATimeIsCutOff() async throws {
        let (h, port) = try await server(ConnectionPolicy(idle: .seconds(60), head: .seconds(60), body: .seconds(1)))
        let slow = try RawConnection(port: port)
        XCTAssertTrue(slow.send("POST /api/collections HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 400\r\n\r\n"))
        var sent = 0
        var closed = false
        for _ in 0..<400 {
            guard slow.send(" ") else { closed = true; break }
            sent += 1
            if slow.closed(within: 0.1) { closed = true; break }
        }
        XCTAssertTrue(closed, "the body was sent whole (\(sent) bytes) without the server closing")
        XCTAssertEqual(try health(port), "HTTP/1.1 200 OK")
        _ = h
    }

    /// The cap per address is the rule's own (`ConnectionLimits.maxPerAddress`).
    func testConnectionsPastTheCapFromOneAddressAreRefusedAndOthersServed() async throws {
        let (h, port) = try await server(ConnectionPolicy(idle: .seconds(60), head: .seconds(60), body: .seconds(60)))
        var held = try (0..<ConnectionLimits.maxPerAddress).map { _ in try RawConnection(port: port, from: "127.0.0.3") }
        XCTAssertFalse(held[0].closed(within: 0.5), "connections up to the cap are kept")
        let refused = try RawConnection(port: port, from: "127.0.0.3")
        XCTAssertTrue(refused.closed(within: 20), "the connection past the cap is closed")
        XCTAssertTrue(refused.received.isEmpty)
        // Another client is served meanwhile, and so is this one once it holds fewer.
        XCTAssertEqual(try health(port, from: "127.0.0.4"), "HTTP/1.1 200 OK")
        XCTAssertFalse(held.last?.closed(within: 0.2) ?? true, "the ones held stay open")
        held.removeLast(2)
        var answered: String?
        for _ in 0..<50 where answered == nil {
            answered = try health(port, from: "127.0.0.3")
            if answered == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        XCTAssertEqual(answered, "HTTP/1.1 200 OK")
        _ = h
    }

    func testMemoryIsGivenBackAfterAStorm() async throws {
        let storms = StormCount()
        let (h, port) = try await server(ConnectionPolicy(idle: .seconds(60), head: .seconds(60), body: .seconds(60), stormConnections: 20),
                                         afterStorm: { storms.add() })
        var storm = try (0..<24).map { _ in try RawConnection(port: port, from: "127.0.0.5") }
        XCTAssertEqual(try health(port), "HTTP/1.1 200 OK")
        XCTAssertEqual(storms.count, 0, "not while the storm lasts")
        storm.removeAll()
        XCTAssertTrue(storms.reached(1, within: 20), "memory is given back once the storm is over")
        _ = h
    }
}

final class StormCount: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func add() { lock.withLock { value += 1 } }
    var count: Int { lock.withLock { value } }
    func reached(_ target: Int, within seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if count >= target { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return count >= target
    }
}
