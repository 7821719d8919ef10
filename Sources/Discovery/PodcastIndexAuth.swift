import Crypto

/// Podcast Index's request signature (api.podcastindex.org, "Authentication Details"): the
/// key in `X-Auth-Key`, the current Unix time in `X-Auth-Date`, and in `Authorization` the
/// SHA-1 of key, secret and that same date concatenated, as 40 lowercase hex digits. The
/// server refuses a date more than 3 minutes off, so the date is taken at each request.
public struct PodcastIndexAuth: Sendable, Equatable {
    public var key: String
    public var secret: String

    public init(key: String, secret: String) { self.key = key; self.secret = secret }

    public func headers(now: Int64) -> [String: String] {
        let date = String(now)
        let digest = Insecure.SHA1.hash(data: Array((key + secret + date).utf8))
        let hex = digest.map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0f)]])
        }.joined()
        return ["X-Auth-Key": key, "X-Auth-Date": date, "Authorization": hex]
    }
}
