import FeedModel
import LibraryStore

// SCAFFOLD: every method here throws `notWritten` until its port from LibrarySQLite lands;
// this file is replaced whole by the port of gpodder's episode actions.
extension PostgresLibrary {
    public func recordEpisodeActions(_ actions: [EpisodeAction], now: Int64) async throws(LibraryError) -> Int64 { throw Self.notWritten(#function) }
    public func episodeActions(_ query: EpisodeActionQuery) async throws(LibraryError) -> (actions: [EpisodeAction], timestamp: Int64) { throw Self.notWritten(#function) }
}
