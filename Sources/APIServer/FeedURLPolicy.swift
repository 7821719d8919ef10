import FeedIngest
import Foundation
import Glibc

/// Which feed URLs a client may make the server fetch. The server fetches what it is given, so
/// by default a URL whose host is (or resolves to) a loopback, private, link-local or otherwise
/// local address is refused: a client must not reach what only the server's machine can.
/// `--allow-private-feeds` lifts it (the tests serve their feeds on 127.0.0.1).
///
/// Checked before the first fetch, on the URL given. Not covered (yet): a public feed that
/// redirects to a private address, a public page whose feed link is private, and a name that
/// resolves differently at fetch time; closing those needs the check in the fetcher itself.
struct FeedURLPolicy: Sendable {
    let allowPrivate: Bool

    /// Why `url` is refused, or nil when it may be fetched.
    func refusal(for url: String) -> String? {
        guard !allowPrivate, let target = SubscriptionURL.classify(url) else { return nil }
        // YouTube and Rumble forms are fetched from those sites, whatever host was typed.
        guard case .feed(let feedURL) = target, let host = URLComponents(string: feedURL)?.host, !host.isEmpty else { return nil }
        let name = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let addresses = Self.resolve(name)
        if addresses.isEmpty { return nil }  // unresolvable: the fetch fails with its own message
        if let local = addresses.first(where: Self.isLocal) {
            return "\(url): refused: \(host) is a local address (\(local)); the server fetches feeds only from public addresses unless started with --allow-private-feeds"
        }
        return nil
    }

    /// Why the web page at `url` (a video saved by its URL) may not be fetched, or nil. Any
    /// host is checked, YouTube's and Rumble's too: the server fetches the page as given.
    func refusal(forPage url: String) -> String? {
        let lower = url.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else {
            return "\(url): only http and https pages can be read"
        }
        guard !allowPrivate else { return nil }
        guard let host = URLComponents(string: url)?.host, !host.isEmpty else { return "\(url): not a URL with a host" }
        let name = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if let local = Self.resolve(name).first(where: Self.isLocal) {
            return "\(url): refused: \(host) is a local address (\(local)); the server fetches pages only from public addresses unless started with --allow-private-feeds"
        }
        return nil
    }

    /// Every address `host` resolves to, as text.
    static func resolve(_ host: String) -> [String] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return [] }
        defer { freeaddrinfo(first) }
        var addresses: [String] = []
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let entry = node {
            var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            if let address = entry.pointee.ai_addr,
               getnameinfo(address, entry.pointee.ai_addrlen, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST) == 0 {
                addresses.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            }
            node = entry.pointee.ai_next
        }
        return addresses
    }

    /// Loopback, private (RFC 1918, IPv6 unique-local), link-local, carrier-grade NAT, "this
    /// network", multicast and unspecified addresses; IPv4-mapped IPv6 as its IPv4 address.
    static func isLocal(_ address: String) -> Bool {
        var text = address.lowercased()
        if let percent = text.firstIndex(of: "%") { text = String(text[..<percent]) }  // fe80::1%eth0
        if text.hasPrefix("::ffff:"), text.contains(".") { text = String(text.dropFirst(7)) }
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            let a = UInt32(bigEndian: v4.s_addr)
            let (b0, b1) = (a >> 24, (a >> 16) & 0xFF)
            return b0 == 0 || b0 == 10 || b0 == 127 || (b0 == 169 && b1 == 254) || (b0 == 172 && (16...31).contains(b1))
                || (b0 == 192 && b1 == 168) || (b0 == 100 && (64...127).contains(b1)) || b0 >= 224
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return true }  // not an address: refuse rather than guess
        let bytes = withUnsafeBytes(of: v6) { Array($0) }
        if bytes.allSatisfy({ $0 == 0 }) { return true }                                   // ::
        if bytes[0..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return true }          // ::1
        if bytes[0] & 0xFE == 0xFC { return true }                                          // fc00::/7
        if bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80 { return true }                      // fe80::/10
        if bytes[0] == 0xFF { return true }                                                 // multicast
        return false
    }
}
