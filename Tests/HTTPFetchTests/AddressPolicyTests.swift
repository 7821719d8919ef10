import Foundation
import TestSupport
import XCTest
@testable import HTTPFetch

/// A fetcher that refuses addresses checks the address it is about to connect to, on every
/// hop, before any connection is made (`AddressPolicy`).
final class AddressPolicyTests: XCTestCase {
    private func failure(_ fetcher: Fetcher, _ url: String, headOnly: Bool = false) async throws -> FetchError {
        do {
            let response = try await fetcher.fetch(FetchRequest(url: url, maxBytes: 1 << 20, headOnly: headOnly))
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

    /// Every form the audit tried (issue 26): each is judged as the address it connects to.
    func testWhatIsLocal() {
        let local = [
            // IPv4 ranges: loopback, RFC 1918, link-local (cloud metadata), CGNAT, "this network",
            // IETF assignments, benchmarking, multicast, reserved, broadcast.
            "127.0.0.1", "127.8.9.10", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254",
            "100.64.0.1", "100.127.255.255", "0.0.0.0", "0.1.2.3", "192.0.0.170", "198.18.0.1", "198.19.255.255",
            "224.0.0.1", "240.0.0.1", "255.255.255.255",
            // IPv4 as the resolver and libcurl read it: decimal, octal, hex, short, mixed.
            "2130706433", "017700000001", "0177.0.0.1", "0x7f000001", "0x7f.0.0.1", "0x7F.1", "127.1", "127.0.1", "0", "0x0",
            "3232235777", "0300.0250.1.1", "0xa9.0xfe.0xa9.0xfe", "167772161",
            // IPv6: unspecified, loopback, unique-local, link-local (with a zone), site-local, multicast, discard.
            "::", "::1", "0:0:0:0:0:0:0:1", "fc00::1", "fd00::2", "fe80::1", "fe80::1%eth0", "febf::1", "fec0::1", "ff02::1",
            "100::1",
            // IPv6 carrying a local IPv4: mapped, compatible (the audit's [::127.0.0.1]), translated,
            // NAT64 (64:ff9b::/96 and the local-use /48), 6to4; Teredo.
            "::ffff:127.0.0.1", "::ffff:7f00:1", "::ffff:10.0.0.1", "::ffff:169.254.169.254", "::127.0.0.1", "::7f00:1",
            "::10.0.0.1", "::8.8.8.8", "::ffff:0:127.0.0.1", "64:ff9b::127.0.0.1", "64:ff9b::7f00:1", "64:ff9b::a00:1",
            "64:ff9b::192.168.0.1", "64:ff9b:1::8.8.8.8", "2002:7f00:1::1", "2002:a9fe:a9fe::", "2001:0:4136:e378::1",
            // As URL hosts give them: in brackets.
            "[::1]", "[::127.0.0.1]", "[64:ff9b::7f00:1]", "[fe80::1%25eth0]",
            // Not an address: refused rather than guessed.
            "not an address", "", "localhost", "127.0.0.1 ", " 127.0.0.1", "127.0.0.1\0x", "[::1", "1.2.3.4.5", "::1::",
        ]
        let global = ["8.8.8.8", "172.32.0.1", "172.15.255.255", "100.128.0.1", "100.63.255.255", "192.0.2.2", "192.0.1.1",
                      "198.17.0.1", "198.20.0.1", "1.1.1.1", "223.255.255.255", "134744072", "0x08080808", "010.010.010.010",
                      "2001:4860:4860::8888", "[2606:4700::1111]", "::ffff:8.8.8.8", "::ffff:808:808", "64:ff9b::8.8.8.8",
                      "64:ff9b::808:808", "2002:808:808::1", "2a00:1450::1"]
        for address in local { XCTAssertTrue(NetworkAddress.isLocal(address), "\(address) should be local") }
        for address in global { XCTAssertFalse(NetworkAddress.isLocal(address), "\(address) should be public") }
    }

    /// `headOnly` (where a media URL's redirects lead, issue 26): the final URL and status
    /// after the redirects, no body, whatever the body's size.
    func testAHeadOnlyRequestFollowsTheRedirectsAndReadsNoBody() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        try server.write("big.mp3", Data(repeating: 7, count: 4_000_000))
        let url = server.url("/redirect/302?to=" + server.url("/big.mp3"))
        let response = try await Fetcher().fetch(FetchRequest(url: url, maxBytes: 1024, headOnly: true))
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.finalURL, server.url("/big.mp3"))
        XCTAssertEqual(response.redirects, 1)
        XCTAssertEqual(response.body, [])
        XCTAssertEqual(response.headers["content-length"], "4000000")
        let missing = try await failure(Fetcher(), server.url("/missing.mp3"), headOnly: true)
        XCTAssertEqual(missing.kind, .http(status: 404))
        // Within the reach it is given, as any fetch: a name that resolves to loopback is refused.
        let refused = try await failure(Fetcher.publicOnly, "http://media.localhost:\(server.port)/big.mp3", headOnly: true)
        XCTAssertTrue(refused.reason.hasPrefix("refused: "), refused.description)
    }
}
