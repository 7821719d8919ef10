import FeedModel
import FeedParsing
import HTTPFetch
import LibraryStore
import PlayerCore

/// Finds a library item's Podcasting 2.0 chapters: from the library's cache, else fetched from
/// the item's chapters URL (then cached), by a fetch held to the item's channel's reach (a feed
/// a server user follows reaches public addresses only: the chapters URL is the feed's text). Failures are logged and mean "no podcast chapters":
/// the embedded ones, if any, stay.
struct ChapterLoader: Sendable {
    let library: any ChapterCache
    let log: ServiceLog

    /// A chapters file is small; a huge or slow one is not worth waiting for.
    static let maxBytes = 2_000_000
    static let timeout = 15.0

    func chapters(itemID: Int64, reach: AddressReach) async -> [Chapter]? {
        do {
            guard let url = try await library.chaptersURL(itemID: itemID) else { return nil }
            if let cached = try await library.cachedChapters(itemID: itemID, url: url),
               let parsed = try? PodcastChapters.parse(cached) {
                return Self.convert(parsed)
            }
            let request = FetchRequest(url: url, maxBytes: Self.maxBytes, connectTimeout: 10,
                                       totalTimeout: Self.timeout, stallTimeout: 10)
            // The process's client, made on first use: playing files and items without a chapters
            // URL never loads libcurl (its global init loads OpenSSL, ~2 MB resident).
            let response = try await Fetcher.shared.reaching(reach).fetch(request)
            let parsed = try PodcastChapters.parse(response.body)
            try await library.cacheChapters(itemID: itemID, url: url, body: response.body, now: Clock.now())
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
