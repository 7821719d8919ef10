/// The final response of a fetch (after redirects). HTTP errors (≥ 400) are `FetchError`s, so a
/// response is a 2xx, a 304, or a 3xx that is not a redirect.
public struct FetchResponse: Sendable, Equatable {
    public var status: Int
    /// The URL the body came from, after redirects.
    public var finalURL: String
    /// True when at least one redirect was followed and every one was permanent (301 or 308):
    /// the caller may then replace the URL it stored with `finalURL`.
    public var permanentRedirect: Bool
    /// How many redirects were followed.
    public var redirects: Int
    public var etag: String?
    public var lastModified: String?
    /// The media type of `Content-Type`, lowercased, without parameters (`application/rss+xml`).
    public var contentType: String?
    /// The `charset` parameter of `Content-Type`, lowercased and unquoted (`utf-8`).
    public var charset: String?
    /// Every header of the final response, names lowercased; repeated headers joined with ", ".
    public var headers: [String: String]
    /// The body, decoded from gzip/deflate/br. Empty for a 304.
    public var body: [UInt8]
    /// From the start of the first request to the end of the last, excluding time spent queued.
    public var seconds: Double

    public var notModified: Bool { status == 304 }

    public init(status: Int, finalURL: String, permanentRedirect: Bool = false, redirects: Int = 0,
                etag: String? = nil, lastModified: String? = nil, contentType: String? = nil,
                charset: String? = nil, headers: [String: String] = [:], body: [UInt8] = [],
                seconds: Double = 0) {
        self.status = status
        self.finalURL = finalURL
        self.permanentRedirect = permanentRedirect
        self.redirects = redirects
        self.etag = etag
        self.lastModified = lastModified
        self.contentType = contentType
        self.charset = charset
        self.headers = headers
        self.body = body
        self.seconds = seconds
    }
}
