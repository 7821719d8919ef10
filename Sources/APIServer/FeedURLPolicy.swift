import FeedIngest
import FeedModel
import HTTPFetch
import FeedText
import LibraryStore
import Foundation

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
        return NetworkAddress.localAddress(ofHost: host).map {
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
        return NetworkAddress.localAddress(ofHost: host).map {
            "\(url): refused: \(host) is a local address (\($0)); the server fetches pages only from public addresses unless started with --allow-private-feeds"
        }
    }

    /// The media URL in `text`, which a client asks the player to play (`/api/player/play`,
    /// `/api/player/queue`), read once: trimmed, an http(s) URL with a host and nothing a URL
    /// cannot hold (whitespace, control characters: FFmpeg read one that did), then checked as
    /// pages are. What it returns is what the player gets; the daemon follows its redirects
    /// itself, within public addresses unless the URL's own host is local.
    func mediaURL(_ text: String) throws(APIError) -> String {
        let url = text.trimmingWhitespace()
        guard !url.isEmpty, !url.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }),
              let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = parts.host, !host.isEmpty else {
            throw .unprocessable("\(LibraryError.quoted(text)) is not an http(s) URL (a URL holds no spaces or control characters)")
        }
        if let refusal = refusal(forPage: url) { throw .badRequest(refusal) }
        return url
    }
}
