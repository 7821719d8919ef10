import Digests

/// Podcast Index's request signature (api.podcastindex.org, "Authentication Details"): the
/// key in `X-Auth-Key`, the current Unix time in `X-Auth-Date`, and in `Authorization` the
/// SHA-1 of key, secret and that same date concatenated, as 40 lowercase hex digits. The
/// server refuses a date more than 3 minutes off, so the date is taken at each request.
public struct PodcastIndexAuth: Sendable, Equatable {
    public var key: String
    public var secret: String

    public init(key: String, secret: String) { self.key = key; self.secret = secret }

    public func headers(now: Int64) throws(DigestUnavailable) -> [String: String] {
        let date = String(now)
        return ["X-Auth-Key": key, "X-Auth-Date": date, "Authorization": try Digest.sha1.hex(key + secret + date)]
    }
}
