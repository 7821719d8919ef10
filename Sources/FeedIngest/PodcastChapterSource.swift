import FeedParsing
import HTTPFetch
import LibraryStore

/// An item's Podcasting 2.0 chapters: the library's cached file, else fetched from the item's
/// `podcast:chapters` URL (then cached). The one way to get them, for the daemon's player
/// (`ChapterLoader`) and the server's item page (`GET /api/feed/items/{id}`).
public struct PodcastChapterSource: Sendable {
    let library: any ChapterCache
    /// Already narrowed to what the item's channel may reach (a feed's text names the URL).
    let fetcher: Fetcher

    /// A chapters file is small; a huge or slow one is not worth waiting for.
    public static let maxBytes = 2_000_000
    public static let timeout = 15.0

    public init(library: any ChapterCache, fetcher: Fetcher) {
        self.library = library
        self.fetcher = fetcher
    }

    /// nil: the item's feed names no chapters file. Throws what failed (the library, the fetch,
    /// a file that is not chapters JSON).
    public func chapters(itemID: Int64, now: Int64) async throws -> [PodcastChapter]? {
        guard let url = try await library.chaptersURL(itemID: itemID) else { return nil }
        if let cached = try await library.cachedChapters(itemID: itemID, url: url),
           let parsed = try? PodcastChapters.parse(cached) {
            return parsed
        }
        let request = FetchRequest(url: url, maxBytes: Self.maxBytes, connectTimeout: 10,
                                   totalTimeout: Self.timeout, stallTimeout: 10)
        let response = try await fetcher.fetch(request)
        let parsed = try PodcastChapters.parse(response.body)
        try await library.cacheChapters(itemID: itemID, url: url, body: response.body, now: now)
        return parsed
    }
}
