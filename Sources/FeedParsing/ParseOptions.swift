import FeedModel

/// How a document is read: where it came from (for relative URLs), what charset the server
/// declared (overrides the XML declaration), and how large it may be.
public struct ParseOptions: Sendable {
    /// The URL the document was fetched from; relative links resolve against it.
    public var documentURL: String?
    /// The `charset` of the HTTP `Content-Type`, if any.
    public var httpCharset: String?
    /// Larger documents are refused with `FeedError.tooLarge`.
    public var maxBytes: Int

    public init(documentURL: String? = nil, httpCharset: String? = nil, maxBytes: Int = FeedLimits.maxBytes) {
        self.documentURL = documentURL
        self.httpCharset = httpCharset
        self.maxBytes = maxBytes
    }
}
