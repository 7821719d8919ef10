import FeedModel
import LibraryStore

// SCAFFOLD: every method here throws `notWritten` until its port from LibrarySQLite lands;
// this file is replaced whole by the port of watch state, saved items and saved videos, the play history.
extension PostgresLibrary {
    public func saved() async throws(LibraryError) -> [LibraryItem] { throw Self.notWritten(#function) }
    public func history(limit: Int) async throws(LibraryError) -> [HistoryEntry] { throw Self.notWritten(#function) }
    public func setWatched(_ ids: [Int64], watched: Bool, now: Int64) async throws(LibraryError) -> [Int64] { throw Self.notWritten(#function) }
    public func setWatched(channelID: Int64, publishedBefore before: Int64?, now: Int64) async throws(LibraryError) -> Int { throw Self.notWritten(#function) }
    public func updateWatchState(_ id: Int64, _ update: WatchUpdate, now: Int64) async throws(LibraryError) -> WatchState { throw Self.notWritten(#function) }
    public func save(_ id: Int64, now: Int64) async throws(LibraryError) { throw Self.notWritten(#function) }
    public func unsave(_ id: Int64) async throws(LibraryError) { throw Self.notWritten(#function) }
    public func save(_ ids: [Int64], now: Int64) async throws(LibraryError) -> [Int64] { throw Self.notWritten(#function) }
    public func unsave(_ ids: [Int64]) async throws(LibraryError) -> [Int64] { throw Self.notWritten(#function) }
    public func appendHistory(item id: Int64, position: Int?, now: Int64) async throws(LibraryError) -> HistoryEntry { throw Self.notWritten(#function) }
    public func savedVideos(_ query: SavedVideoQuery) async throws(LibraryError) -> (videos: [SavedVideo], total: Int) { throw Self.notWritten(#function) }
    public func savedVideo(id: Int64) async throws(LibraryError) -> SavedVideo { throw Self.notWritten(#function) }
    public func itemID(forURL url: String) async throws(LibraryError) -> Int64? { throw Self.notWritten(#function) }
    public func itemID(platform: Platform, videoID: String) async throws(LibraryError) -> Int64? { throw Self.notWritten(#function) }
    public func saveVideo(item: Int64, notes: String?, now: Int64) async throws(LibraryError) -> (video: SavedVideo, created: Bool) { throw Self.notWritten(#function) }
    public func saveVideo(page: SavedPage, notes: String?, now: Int64) async throws(LibraryError) -> (video: SavedVideo, created: Bool) { throw Self.notWritten(#function) }
    public func updateSavedVideo(id: Int64, _ change: SavedVideoChange, now: Int64) async throws(LibraryError) -> SavedVideo { throw Self.notWritten(#function) }
    public func deleteSavedVideo(id: Int64) async throws(LibraryError) { throw Self.notWritten(#function) }
}
