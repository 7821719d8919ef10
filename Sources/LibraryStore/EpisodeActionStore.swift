/// Episode actions (the gpodder.net API's), for the acting user.
public protocol EpisodeActionStore: Sendable {
    /// Keeps `actions` (all of them, for episodes the library has or not) and applies those for
    /// the user's items to their watch state: `play` with a position sets the progress, or marks
    /// the item watched when it reached the end (`WatchRule`); `new` marks it unwatched;
    /// `download` and `delete` are only kept. An item is found by (podcast URL, guid), else by
    /// its media URL in that podcast. The last action by timestamp wins, against feedctl's own
    /// changes too. Returns the sync clock's reading after the upload.
    func recordEpisodeActions(_ actions: [EpisodeAction], now: Int64) async throws(LibraryError) -> Int64
    /// The actions uploaded after `query.since`, oldest upload first, and, unless a device is
    /// asked for, the watch state changed in feedctl after it (as `play` or `new` actions without
    /// a device). Returns the sync clock's reading too (the next `since`).
    func episodeActions(_ query: EpisodeActionQuery) async throws(LibraryError) -> (actions: [EpisodeAction], timestamp: Int64)
}
