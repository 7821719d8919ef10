import FeedModel
import HTTPFetch

/// The bounds on every request a sync or a subscription makes (see `FetchRequest`).
public struct SyncLimits: Sendable, Equatable {
    public var connectTimeout: Double
    /// For the whole transfer, redirects included: a server trickling a body cannot hold a sync.
    public var totalTimeout: Double
    /// Whole seconds below 1 byte/s before a transfer is abandoned.
    public var stallTimeout: Double
    /// The largest body accepted (decoded).
    public var maxBytes: Int
    public var maxRedirects: Int

    public init(connectTimeout: Double = 10, totalTimeout: Double = 60, stallTimeout: Double = 30,
                maxBytes: Int = FeedLimits.maxBytes, maxRedirects: Int = 5) {
        self.connectTimeout = connectTimeout
        self.totalTimeout = totalTimeout
        self.stallTimeout = stallTimeout
        self.maxBytes = maxBytes
        self.maxRedirects = maxRedirects
    }

    /// A GET of `url` within these bounds, conditional when validators are given.
    package func request(_ url: String, etag: String? = nil, lastModified: String? = nil) -> FetchRequest {
        FetchRequest(url: url, maxBytes: maxBytes, etag: etag, lastModified: lastModified,
                     connectTimeout: connectTimeout, totalTimeout: totalTimeout,
                     stallTimeout: stallTimeout, maxRedirects: maxRedirects)
    }
}
