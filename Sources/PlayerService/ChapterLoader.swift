import FeedIngest
import FeedModel
import FeedParsing
import HTTPFetch
import LibraryStore
import PlayerCore

/// Finds a library item's Podcasting 2.0 chapters (`PodcastChapterSource`: the library's cache,
/// else the item's chapters URL), by a fetch held to the item's channel's reach (a feed a server
/// user follows reaches public addresses only: the chapters URL is the feed's text). Failures are
/// logged and mean "no podcast chapters": the embedded ones, if any, stay.
struct ChapterLoader: Sendable {
    let library: any ChapterCache
    let log: ServiceLog

    func chapters(itemID: Int64, reach: AddressReach) async -> [Chapter]? {
        do {
            // The process's client, made on first use: playing files and items without a chapters
            // URL never loads libcurl (its global init loads OpenSSL, ~2 MB resident).
            let source = PodcastChapterSource(library: library, fetcher: Fetcher.shared.reaching(reach))
            return try await source.chapters(itemID: itemID, now: Clock.now()).map(Self.convert)
        } catch {
            log("chapters of item \(itemID): \(error)")
            return nil
        }
    }

    static func convert(_ chapters: [PodcastChapter]) -> [Chapter] {
        chapters.map { Chapter(start: $0.startTime, end: $0.endTime, title: $0.title) }
    }
}
