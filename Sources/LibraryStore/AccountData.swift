import FeedModel

/// What a user's data export (`feedctl user export`, `GET /api/account/export`) reads beyond
/// the other protocols: the user's rows that grow without bound, a page at a time in id order,
/// so an export of a big library holds one page at once. Like every store, the acting user's
/// rows only.
public protocol AccountDataStore: Sendable {
    /// The user's watch state (marks and progress), by item id: those after item `after`, at
    /// most `limit`.
    func watchStates(after item: Int64, limit: Int) async throws(LibraryError) -> [ItemWatchState]
    /// The user's play history, oldest first (by id): entries after `after`, at most `limit`.
    func historyEntries(after id: Int64, limit: Int) async throws(LibraryError) -> [HistoryEntry]
    /// The episode actions the user's devices uploaded (gpodder.net), as uploaded, by id: those
    /// after `after`, at most `limit`.
    func uploadedEpisodeActions(after id: Int64, limit: Int) async throws(LibraryError) -> [UploadedEpisodeAction]
}

/// One item's watch state, with what names the item outside this library (its feed, guid and
/// URLs), so an export stands on its own.
public struct ItemWatchState: Sendable, Equatable {
    /// The library's item id.
    public var item: Int64
    /// The feed URL of the item's channel.
    public var feedURL: String
    /// The parser's id (video id, guid…).
    public var itemID: String
    /// The feed's guid, when it gave one.
    public var guid: String?
    public var title: String
    public var url: String?
    public var enclosureURL: String?
    public var watched: Bool
    public var progressSeconds: Int
    public var watchedAt: Int64?
    public var updatedAt: Int64

    public init(item: Int64, feedURL: String, itemID: String, guid: String?, title: String, url: String?, enclosureURL: String?,
                watched: Bool, progressSeconds: Int, watchedAt: Int64?, updatedAt: Int64) {
        self.item = item; self.feedURL = feedURL; self.itemID = itemID; self.guid = guid; self.title = title; self.url = url
        self.enclosureURL = enclosureURL; self.watched = watched; self.progressSeconds = progressSeconds
        self.watchedAt = watchedAt; self.updatedAt = updatedAt
    }
}

/// An episode action as a device uploaded it, with its id and the sync clock's reading then.
public struct UploadedEpisodeAction: Sendable, Equatable {
    public var id: Int64
    public var uploaded: Int64
    public var action: EpisodeAction

    public init(id: Int64, uploaded: Int64, action: EpisodeAction) {
        self.id = id; self.uploaded = uploaded; self.action = action
    }
}
