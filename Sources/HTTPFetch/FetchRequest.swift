/// One HTTP GET (or a POST, with `body`), always bounded: the caller says how large a body it accepts; the other bounds
/// default to 10 s to connect, 60 s in all (redirects included, time spent queued excluded),
/// 5 redirects.
public struct FetchRequest: Sendable, Equatable {
    public var url: String
    /// Sent as `If-None-Match`: a matching server answers 304 without a body.
    public var etag: String?
    /// Sent as `If-Modified-Since` (the server's own `Last-Modified` string, passed back verbatim).
    public var lastModified: String?
    /// The largest body accepted, counted after decompression; larger responses fail early.
    public var maxBytes: Int
    public var connectTimeout: Double
    public var totalTimeout: Double
    /// A transfer slower than 1 byte/s for this long fails, so a stalled body cannot hold a slot
    /// until the total timeout. Whole seconds (libcurl's unit), at least 1.
    public var stallTimeout: Double
    public var maxRedirects: Int
    /// Asks for the bytes from this offset on (`Range: bytes=N-`): a 206 means the server
    /// honoured it, a 200 that it sent the whole body.
    public var rangeStart: Int64?
    /// Extra request header fields (an API's credentials: Podcast Index's `X-Auth-Key`…), sent
    /// on every hop. A name or value holding a control character is not sent.
    public var headers: [String: String]
    /// Stops at the final response's head: its status, headers and URL, without its body (a
    /// GET, not a HEAD, which servers and trackers answer differently). Where a media URL's
    /// redirects lead, found before a player opens it.
    public var headOnly: Bool
    /// Sends these bytes as a POST (an OAuth token request's form; the caller names its
    /// `Content-Type` in `headers`). A POST's redirect is not followed but fails the fetch: the
    /// body would go to a place the caller did not name.
    public var body: [UInt8]?

    public init(url: String, maxBytes: Int, etag: String? = nil, lastModified: String? = nil,
                connectTimeout: Double = 10, totalTimeout: Double = 60,
                stallTimeout: Double = 30, maxRedirects: Int = 5, rangeStart: Int64? = nil,
                headers: [String: String] = [:], headOnly: Bool = false, body: [UInt8]? = nil) {
        self.url = url
        self.etag = etag
        self.lastModified = lastModified
        self.maxBytes = maxBytes
        self.connectTimeout = connectTimeout
        self.totalTimeout = totalTimeout
        self.stallTimeout = stallTimeout
        self.maxRedirects = maxRedirects
        self.rangeStart = rangeStart
        self.headers = headers
        self.headOnly = headOnly
        self.body = body
    }
}
