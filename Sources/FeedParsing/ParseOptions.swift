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
    /// CPU seconds the parse may take (`ParseLimits.timeBudget`); past it, `FeedError.overLimit`.
    public var timeBudget: Double

    public init(documentURL: String? = nil, httpCharset: String? = nil, maxBytes: Int = FeedLimits.maxBytes,
                timeBudget: Double = ParseLimits.timeBudget) {
        self.documentURL = documentURL
        self.httpCharset = httpCharset
        self.maxBytes = maxBytes
        self.timeBudget = timeBudget
    }
}
