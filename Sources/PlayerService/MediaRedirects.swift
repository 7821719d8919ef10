import FeedModel
import Foundation
import HTTPFetch
import PlayerCore

/// Where a media URL's redirects lead, found before FFmpeg opens it (issue 26). FFmpeg follows
/// redirects without asking where they lead, so it is given only the final URL, with redirects
/// off (`max_redirects=0`, `Decoder`); the chain is followed here by the feed fetcher, every
/// hop's address checked where it connects, within a reach: a library item's channel's
/// (`AddressReach`: a feed a server user follows plays from public addresses only), and for a
/// URL, public addresses only unless the URL's own host is local, so a redirect never leads
/// from a public address to a private one.
enum MediaRedirects {
    /// What the redirects of `url`, a URL given to play, may reach.
    static func reach(ofURL url: String) async -> AddressReach {
        guard let host = URLComponents(string: url)?.host, !host.isEmpty else { return .publicOnly }
        // The system resolver blocks: not on the cooperative pool.
        let local = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: NetworkAddress.localAddress(ofHost: host) != nil) }
        }
        return local ? .anyAddress : .publicOnly
    }

    /// The URL `url` redirects to in the end (itself when it does not), reading no body.
    static func finalURL(_ url: String, reach: AddressReach) async throws(PlayerError) -> String {
        let probe = FetchRequest(url: url, maxBytes: 1 << 16, connectTimeout: 10, totalTimeout: 30, stallTimeout: 10,
                                 maxRedirects: 10, headOnly: true)
        do {
            return try await Fetcher.shared.reaching(reach).fetch(probe).finalURL
        } catch {
            throw .cannotOpen(source: url, reason: reason(error))
        }
    }

    /// The fetcher's reason, but a redirect to another scheme (`file:`) said as such.
    private static func reason(_ error: FetchError) -> String {
        guard error.kind == .protocolNotAllowed, error.reason.contains("(redirected to ") else { return error.reason }
        // "protocol file not allowed (only http and https) (redirected to file:///…)"
        let words = error.reason.split(separator: " ")
        let scheme = words.count > 2 && words[2] == "not" ? "\(words[1]):" : "non-http"
        return "redirected to a \(scheme) URL, which media may not open (only http and https)"
    }
}
