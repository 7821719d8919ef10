import Foundation
import TestSupport
import XCTest
@testable import HTTPFetch

/// A fetcher that refuses addresses checks the address it is about to connect to, on every
/// hop, before any connection is made (`AddressPolicy`).
final class AddressPolicyTests: XCTestCase {
    private func failure(_ fetcher: Fetcher, _ url: String) async throws -> FetchError {
        do {
            let response = try await fetcher.fetch(FetchRequest(url: url, maxBytes: 1 << 20))
            throw TestHTTPServer.Failure(description: "expected an error, got HTTP \(response.status)")
        } catch let error as FetchError {
            return error
        }
    }

    func testPublicOnlyRefusesLoopbackByAddressAndByName() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        try server.write("feed.xml", "<rss/>")
        let fetcher = Fetcher(addresses: .publicOnly)
        let direct = try await failure(fetcher, server.url("/feed.xml"))
        XCTAssertEqual(direct.description,
                       "\(server.url("/feed.xml")): refused: 127.0.0.1 is a local address (loopback, private or link-local), and only public addresses may be fetched here")
        // libcurl resolves *.localhost to loopback itself; every address it tries is refused.
        let named = try await failure(fetcher, "http://feeds.localhost:\(server.port)/feed.xml")
        XCTAssertTrue(named.reason.hasPrefix("refused: "), named.description)
        XCTAssertEqual(try server.stats().hits["/feed.xml"] ?? 0, 0, "no request reached the server")
        // The same fetch without the policy succeeds: the refusal is the policy's.
        let allowed = try await Fetcher().fetch(FetchRequest(url: server.url("/feed.xml"), maxBytes: 1 << 20))
        XCTAssertEqual(allowed.status, 200)
    }

    /// A redirect's target is checked at its own connect: the first server is allowed, the
    /// second (refused by port, standing in for a private address behind a public one) never
    /// sees a request.
    func testARedirectToARefusedAddressIsRefusedAtItsConnect() async throws {
        let first = try TestHTTPServer(), second = try TestHTTPServer()
        defer { first.stop(); second.stop() }
        try second.write("feed.xml", "<rss/>")
        let refusedPort = second.port
        let fetcher = Fetcher(addresses: AddressPolicy { _, port in port == refusedPort })
        let url = first.url("/redirect/302?to=\(second.url("/feed.xml"))")
        let error = try await failure(fetcher, url)
        XCTAssertTrue(error.reason.hasPrefix("refused: 127.0.0.1 is a local address"), error.description)
        XCTAssertTrue(error.reason.hasSuffix("(redirected to \(second.url("/feed.xml")))"), error.description)
        XCTAssertEqual(try second.stats().hits["/feed.xml"] ?? 0, 0, "the redirect's target got no request")
        let allowed = try await Fetcher().fetch(FetchRequest(url: url, maxBytes: 1 << 20))
        XCTAssertEqual(allowed.status, 200)
    }

    func testWhatIsLocal() {
        let local = ["127.0.0.1", "127.8.9.10", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254",
                     "100.64.0.1", "100.127.255.255", "0.0.0.0", "224.0.0.1", "255.255.255.255", "::", "::1", "fe80::1%eth0",
                     "fc00::1", "fd00::2", "ff02::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "not an address", ""]
        let global = ["8.8.8.8", "172.32.0.1", "172.15.255.255", "100.128.0.1", "192.0.2.2", "1.1.1.1", "2001:4860:4860::8888",
                      "::ffff:8.8.8.8", "2606:4700::1111"]
        for address in local { XCTAssertTrue(NetworkAddress.isLocal(address), address) }
        for address in global { XCTAssertFalse(NetworkAddress.isLocal(address), address) }
    }
}
