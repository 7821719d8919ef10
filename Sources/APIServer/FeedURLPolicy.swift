import FeedIngest
import FeedModel
import HTTPFetch
import Foundation
import Glibc

/// Which feed URLs a client may make the server fetch. The server fetches what it is given, so
/// by default a URL whose host is (or resolves to) a loopback, private, link-local or otherwise
/// local address is refused: a client must not reach what only the server's machine can.
/// `--allow-private-feeds` lifts it (the tests serve their feeds on 127.0.0.1).
///
/// Checked before the first fetch, on the URL given, for a clear answer up front; a public feed
/// that redirects to a private address, a public page whose feed link is private, and a name
/// that resolves differently at fetch time are refused by the server's fetcher itself
/// (`APIServer.fetcher`, `AddressPolicy.publicOnly`).
struct FeedURLPolicy: Sendable {
    let allowPrivate: Bool

    /// What the server's users may make it fetch, kept with what they subscribe (`AddressReach`).
    var reach: AddressReach { allowPrivate ? .anyAddress : .publicOnly }

    /// Why `url` is refused, or nil when it may be fetched.
    func refusal(for url: String) -> String? {
        guard !allowPrivate, let target = SubscriptionURL.classify(url) else { return nil }
        // YouTube and Rumble forms are fetched from those sites, whatever host was typed.
        guard case .feed(let feedURL) = target, let host = URLComponents(string: feedURL)?.host, !host.isEmpty else { return nil }
        // Unresolvable: the fetch fails with its own message.
        return Self.localAddress(of: host).map {
            "\(url): refused: \(host) is a local address (\($0)); the server fetches feeds only from public addresses unless started with --allow-private-feeds"
        }
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
        return Self.localAddress(of: host).map {
            "\(url): refused: \(host) is a local address (\($0)); the server fetches pages only from public addresses unless started with --allow-private-feeds"
        }
    }

    /// The first local address `host` (a URL's host, IPv6 in brackets) resolves to, nil when none does.
    static func localAddress(of host: String) -> String? {
        let name = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return resolve(name).first(where: isLocal)
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

    /// What the fetcher's own check (`AddressPolicy.publicOnly`) calls local.
    static func isLocal(_ address: String) -> Bool { NetworkAddress.isLocal(address) }
}
