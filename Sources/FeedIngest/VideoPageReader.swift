import FeedModel
import FeedParsing
import HTTPFetch

/// Reads a video's web page for what saving it needs (title, picture, duration…), when the
/// library does not hold the item: the page's Open Graph and JSON-LD, then its oEmbed document
/// if the page names no title or picture. Bounded as `SavedPageRule` says.
public struct VideoPageReader: Sendable {
    let fetcher: Fetcher

    /// `fetcher`: the server's (public addresses only, unless --allow-private-feeds).
    public init(fetcher: Fetcher = .shared) { self.fetcher = fetcher }

    /// The page at `url` (after redirects: `finalURL`) and what it says. Throws `SyncError`
    /// (the URL, then why) when the page cannot be fetched. The page's oEmbed link goes through
    /// the same fetcher (the server's refuses private addresses itself).
    public func read(_ url: String) async throws(SyncError)
        -> (finalURL: String, metadata: VideoPageMetadata) {
        let limits = SyncLimits(totalTimeout: SavedPageRule.totalTimeout, maxBytes: SavedPageRule.maxPageBytes)
        let response: FetchResponse
        do {
            response = try await fetcher.fetch(limits.request(url))
        } catch {
            throw SyncError(error)
        }
        var metadata = VideoPageMetadata.parse(html: response.body, documentURL: response.finalURL)
        if metadata.title == nil || metadata.thumbnailURL == nil, let oEmbed = metadata.oEmbedURL,
           oEmbed.hasPrefix("http://") || oEmbed.hasPrefix("https://") {
            let request = SyncLimits(totalTimeout: SavedPageRule.totalTimeout, maxBytes: SavedPageRule.maxOEmbedBytes).request(oEmbed)
            // The oEmbed document only fills gaps: a page without one is still saved.
            if let document = try? await fetcher.fetch(request) { metadata.fill(fromOEmbed: document.body) }
        }
        return (response.finalURL, metadata)
    }
}
