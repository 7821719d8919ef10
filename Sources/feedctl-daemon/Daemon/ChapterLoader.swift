import FeedctlControl
import FeedIngest
import Foundation
import PlayerCore

/// Finds a library item's Podcasting 2.0 chapters: from the library's cache, else fetched from
/// the item's chapters URL (then cached). Failures are logged and mean "no podcast chapters":
/// the embedded ones, if any, stay.
struct ChapterLoader: Sendable {
    let library: Library

    /// Made on first use (a global is initialized lazily, once): libcurl's global init loads
    /// OpenSSL (~2 MB resident), which playing files and items without a chapters URL never needs.
    private static let fetcher = Fetcher(concurrency: 2)

    /// A chapters file is small; a huge or slow one is not worth waiting for.
    static let maxBytes = 2_000_000
    static let timeout = 15.0

    func chapters(itemID: Int64) async -> [Chapter]? {
        do {
            guard let url = try library.chaptersURL(itemID: itemID) else { return nil }
            if let cached = try library.cachedChapters(itemID: itemID, url: url),
               let parsed = try? PodcastChapters.parse(cached) {
                return Self.convert(parsed)
            }
            let request = FetchRequest(url: url, maxBytes: Self.maxBytes, connectTimeout: 10,
                                       totalTimeout: Self.timeout, stallTimeout: 10)
            let response = try await Self.fetcher.fetch(request)
            let parsed = try PodcastChapters.parse(response.body)
            try library.cacheChapters(itemID: itemID, url: url, body: response.body, now: Clock.now())
            return Self.convert(parsed)
        } catch {
            log("chapters of item \(itemID): \(error)")
            return nil
        }
    }

    static func convert(_ chapters: [PodcastChapter]) -> [Chapter] {
        chapters.map { Chapter(start: $0.startTime, end: $0.endTime, title: $0.title) }
    }
}
