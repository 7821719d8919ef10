import FeedModel

// The library as its users need it, one protocol per use: each consumer takes the narrowest one
// (polling a `PollStore`, subscribing a `SyncStore`, the downloader a `DownloadCatalog`, the
// player what it reads and writes while playing), and `LibraryStore` is all of them. The SQLite library
// (`LibrarySQLite`) implements them; a PostgreSQL one is planned, hence `async`: callers do not
// change with the store. Every method may be called from any task; failures are `LibraryError`s
// whose description is one line for a person.
//
// A store value acts for one user (the CLI and the daemon for the library's owner; the server for
// the authenticated user). Channels and items are shared; everything a person does with them
// (subscriptions, watch state, saved items, collections, history, queue, player state, speeds)
// is that user's alone, and another user's ids are "not found" (`noItem`, `noChannel`,
// `noCollection`): an item is visible only in channels the user follows, and by its id also when
// it is in one of their collections (which keep their items when the user leaves the channel:
// `ChannelRemoval`). The feed, search and the channel lists show followed channels only.

/// Subscriptions: reading them, removing them, and what is remembered per channel. All of it is
/// the acting user's: a channel they do not follow is `noChannel`.
public protocol ChannelStore: Sendable {
    /// Channel `id` with the user's subscription (`active`, `speed`); `noChannel` if they do not follow it.
    func channel(id: Int64) async throws(LibraryError) -> Channel
    /// The channel polled at `feedURL`, if the user follows it.
    func channel(feedURL: String) async throws(LibraryError) -> Channel?
    /// The user's channels, by id.
    func allChannels() async throws(LibraryError) -> [Channel]
    /// The user's channels with their item counts (unwatched by this user), by name.
    func channelSummaries() async throws(LibraryError) -> [ChannelSummary]
    /// Channel `id` with its item counts.
    func channelSummary(id: Int64) async throws(LibraryError) -> ChannelSummary
    /// The user's subscriptions under `query`'s filters, by name (as `channelSummaries`), each
    /// channel with its counts: one page of them, or all; and how many match in all.
    func subscriptions(_ query: SubscriptionQuery) async throws(LibraryError) -> SubscriptionPage
    /// Unsubscribes the user: their subscription and their watch state, saved marks and queue
    /// entries for the channel's items go; their play history stays (it keeps its own copy of
    /// titles and names), and so do their collections' entries. The channel and its items (and
    /// their downloads, which the caller deletes when told) go only when nobody follows it any
    /// more, and then only the items in nobody's collection (`ChannelRemoval`).
    @discardableResult
    func removeChannel(id: Int64) async throws(LibraryError) -> ChannelRemoval
    /// Pauses or resumes the user's subscription (a channel is polled while anyone's is active).
    func setActive(channelID: Int64, _ active: Bool) async throws(LibraryError)
    /// Remembers the user's playback speed for the channel's items (within `PlaybackSpeed.range`).
    func setSpeed(channelID: Int64, _ speed: Double) async throws(LibraryError)
}

extension ChannelStore {
    /// What fetching and playing an item of channel `id` takes from its channel: where its media
    /// may be fetched from, and the speed the user keeps for it. A channel the user does not
    /// follow (an item their collection kept: `ChannelRemoval`) gives public addresses only and
    /// no speed.
    public func playbackSettings(channelID id: Int64) async throws(LibraryError) -> (reach: AddressReach, speed: Double?) {
        do {
            let channel = try await channel(id: id)
            return (channel.reach, channel.speed)
        } catch where error == .noChannel(id) {
            return (.publicOnly, nil)
        }
    }
}

/// What unsubscribing did to the shared channel. The rule for a channel nobody follows: its
/// items that are in someone's collection stay (a published playlist must not lose episodes),
/// shown with the channel's name; the others go, and the channel goes with its last item. It is
/// not polled. Removing a user, or an item from its last collection, applies the same rule.
public enum ChannelRemoval: Sendable, Equatable {
    /// Nobody follows it any more: the channel and its items were deleted.
    case channelRemoved
    /// Nobody follows it any more: its items were deleted but these, which are in collections
    /// (the channel stays, unpolled, for them).
    case keptInCollections([Int64])
    /// Other users still follow it: only this user's subscription and state went.
    case othersStillFollow
}

/// What releasing channels nobody follows did (each store's `releaseUnfollowed`, which applies
/// `ChannelRemoval`'s rule).
package struct ReleasedChannels: Sendable {
    /// How many of the channels nobody follows.
    package var unfollowed = 0
    /// The items that went.
    package var removed: [Int64] = []
    /// The items that stay for someone's collection.
    package var kept: [Int64] = []

    package init(unfollowed: Int = 0, removed: [Int64] = [], kept: [Int64] = []) {
        self.unfollowed = unfollowed; self.removed = removed; self.kept = kept
    }

    /// A channel its last follower left: removed, or kept for the items in collections.
    package var removal: ChannelRemoval { kept.isEmpty ? .channelRemoved : .keptInCollections(kept) }
}

/// What subscribing reads and writes for its user (`channel add`, OPML import, a phone's
/// subscriptions): their channels, the polls that subscribe them, and the library's polling
/// (`PollStore`, which acts for no user) to poll what they follow.
public protocol SyncStore: ChannelStore {
    /// Polling the whole library's channels, for no user (the same library).
    var polling: any PollStore { get }
    /// Applies polls as `PollStore.apply` does (without releasing any claim), a `subscription`
    /// subject subscribing this store's user: the channel is created, or taken as it is when its
    /// feed URL is in the library already (another user's), and the user follows it. Results are
    /// in `polls`' order.
    func apply(_ polls: [Poll], now: Int64) async -> [Result<PollApplied, LibraryError>]
}

/// Reading items: the feed modes, single items, saved items and the history.
public protocol ItemStore: Sendable {
    /// One page of the feed (see `FeedQuery`) as it is at `now`.
    func feed(_ query: FeedQuery, now: Int64) async throws(LibraryError) -> [LibraryItem]
    /// How many items `query`'s mode and filter list over all pages; catch-up and discovery,
    /// computed rather than counted, up to `CatchUp.maxCounted`.
    func feedTotal(_ query: FeedQuery, now: Int64) async throws(LibraryError) -> Int
    /// The highest item id yet (0 for none): ids only grow, so an item stored later has a higher one.
    func lastItemID() async throws(LibraryError) -> Int64
    /// The items of these channels stored after `lastItemID` answered `id` (what a sync since
    /// then found new), newest first, at most `limit`.
    func items(after id: Int64, channelIDs: [Int64], limit: Int) async throws(LibraryError) -> [LibraryItem]
    /// Item `id`; `noItem` if there is none.
    func item(id: Int64) async throws(LibraryError) -> LibraryItem
    /// Item `id` with its show notes and links (`show ID`); `noItem` if there is none.
    func itemDetails(id: Int64) async throws(LibraryError) -> ItemDetails
    /// Saved items, most recently saved first.
    func saved() async throws(LibraryError) -> [LibraryItem]
    /// The play history, newest first.
    func history(limit: Int) async throws(LibraryError) -> [HistoryEntry]
}

/// Full-text search over items (`SearchRule`: titles, show notes and channel names; every word
/// must match, as a prefix too; accents ignored; best match first).
public protocol SearchStore: Sendable {
    /// One page of the items matching `query.text` under `query.filter`, best match first.
    /// Text without a single word (only punctuation) is `invalid`.
    func search(_ query: SearchQuery) async throws(LibraryError) -> [LibraryItem]
}

/// What listening changes.
public protocol ListeningStore: Sendable {
    /// Marks items watched (or unwatched again), all or none; both reset the progress. Returns
    /// the ids whose mark changed, in the order given.
    @discardableResult
    func setWatched(_ ids: [Int64], watched: Bool, now: Int64) async throws(LibraryError) -> [Int64]
    /// Marks channel `channelID`'s backlog watched: all its items, or those published before
    /// `before` (Unix seconds; undated items are then left alone). Returns how many changed.
    @discardableResult
    func setWatched(channelID: Int64, publishedBefore before: Int64?, now: Int64) async throws(LibraryError) -> Int
    /// Changes item `id`'s watch state: a mark, or a position that `WatchRule` may count as
    /// heard (`WatchUpdate`). Returns where the item stands after.
    @discardableResult
    func updateWatchState(_ id: Int64, _ update: WatchUpdate, now: Int64) async throws(LibraryError) -> WatchState
    /// Saves item `id` (saving twice keeps the first time).
    func save(_ id: Int64, now: Int64) async throws(LibraryError)
    /// Unsaves item `id` (a no-op if it was not saved).
    func unsave(_ id: Int64) async throws(LibraryError)
    /// Saves items, all or none (`noItem`/`noItems` names every id the library lacks). Returns
    /// the ids that were not saved before, in the order given.
    @discardableResult
    func save(_ ids: [Int64], now: Int64) async throws(LibraryError) -> [Int64]
    /// Unsaves items, all or none. Returns the ids that were saved.
    @discardableResult
    func unsave(_ ids: [Int64]) async throws(LibraryError) -> [Int64]
    /// Appends a play of item `id` to the history, copying what it needs to outlive the channel.
    @discardableResult
    func appendHistory(item id: Int64, position: Int?, now: Int64) async throws(LibraryError) -> HistoryEntry
}

/// Named, ordered lists of items.
public protocol CollectionStore: Sendable {
    func createCollection(_ name: String, now: Int64) async throws(LibraryError)
    /// All collections, by name.
    func collections() async throws(LibraryError) -> [CollectionSummary]
    /// The items of collection `name`, in order.
    func collection(_ name: String) async throws(LibraryError) -> [LibraryItem]
    /// Appends item `id`; an item is in a collection at most once.
    func addToCollection(item id: Int64, collection name: String, now: Int64) async throws(LibraryError)
    func removeFromCollection(item id: Int64, collection name: String) async throws(LibraryError)
    /// Appends items in the order given, all or none: every id must be in the library and not
    /// yet in the collection.
    func addToCollection(items ids: [Int64], collection name: String, now: Int64) async throws(LibraryError)
    /// Removes items, all or none: every id must be in the collection. (An item that leaves its
    /// last collection when nobody follows its channel goes: `ChannelRemoval`.)
    func removeFromCollection(items ids: [Int64], collection name: String) async throws(LibraryError)
    /// Deletes collection `name`; its items stay in the library.
    func deleteCollection(_ name: String) async throws(LibraryError)

    // By id, as the API names them (another user's id is `noCollectionID`, as one that never was).
    /// All collections with their details, by sort order, then name.
    func collectionDetails() async throws(LibraryError) -> [CollectionDetails]
    /// Collection `id`'s details.
    func collectionDetails(id: Int64) async throws(LibraryError) -> CollectionDetails
    /// Creates a collection; `collectionExists` if the name is taken.
    func createCollection(_ name: String, description: String?, now: Int64) async throws(LibraryError) -> CollectionDetails
    /// Renames, describes or re-sorts collection `id`; `collectionExists` if the new name is taken.
    func updateCollection(id: Int64, _ change: CollectionChange, now: Int64) async throws(LibraryError) -> CollectionDetails
    /// Deletes collection `id`; its items stay in the library.
    func deleteCollection(id: Int64) async throws(LibraryError)
    /// Collection `id`'s items, in order.
    func collectionEntries(id: Int64) async throws(LibraryError) -> [CollectionEntry]
    /// Appends item `item` to collection `id` (`alreadyInCollection` if it is there); the first
    /// item with a thumbnail becomes the cover of a collection without one.
    func addToCollection(id: Int64, item: Int64, now: Int64) async throws(LibraryError) -> CollectionEntry
    /// Removes item `item` from collection `id`; `notInCollection` if it is not there.
    func removeFromCollection(id: Int64, item: Int64, now: Int64) async throws(LibraryError)
    /// Puts the items given first, in that order, the others after them as they were; all or
    /// none: every id must be in the collection.
    func reorderCollection(id: Int64, items: [Int64], now: Int64) async throws(LibraryError)
    /// Copies or moves items from one of the user's collections to another, in one transaction,
    /// as `CollectionTransfer` says; `noCollectionID` when either collection is not theirs.
    func transfer(_ transfer: CollectionTransfer, now: Int64) async throws(LibraryError) -> CollectionTransferResult
    /// The user's collections but `id`, in `collectionDetails()`'s order, each saying whether it
    /// holds any of `id`'s items: where `id`'s items may be copied or moved.
    func collectionTargets(of id: Int64) async throws(LibraryError) -> [CollectionTarget]
}

/// Saved videos as the API has them: library items and pages saved by URL, each with its own
/// id, notes and watch state. The CLI's `save`/`saved` (`ListeningStore`, `ItemStore`) see the
/// library items among them.
public protocol SavedVideoStore: Sendable {
    /// One page of saved videos, most recently saved first, and how many match in all.
    func savedVideos(_ query: SavedVideoQuery) async throws(LibraryError) -> (videos: [SavedVideo], total: Int)
    /// Saved video `id`; `noSavedVideo` if the user has none by that id.
    func savedVideo(id: Int64) async throws(LibraryError) -> SavedVideo
    /// The user's library item whose page or media URL is `url`, if there is one.
    func itemID(forURL url: String) async throws(LibraryError) -> Int64?
    /// The user's library item that is `platform`'s video `videoID` (the parser's item id: a
    /// YouTube video id, a Rumble `v…` token), if there is one: the same video by another URL.
    func itemID(platform: Platform, videoID: String) async throws(LibraryError) -> Int64?
    /// Saves library item `item` (`noItem` if the user cannot see it). Saving twice answers the
    /// first save, unchanged (`created` false), as the backend does.
    func saveVideo(item: Int64, notes: String?, now: Int64) async throws(LibraryError) -> (video: SavedVideo, created: Bool)
    /// Saves a page the library does not hold. A page with the same platform and video id saved
    /// before is answered unchanged (`created` false).
    func saveVideo(page: SavedPage, notes: String?, now: Int64) async throws(LibraryError) -> (video: SavedVideo, created: Bool)
    /// Sets notes, the watched mark or the progress (a library item's are the item's own).
    func updateSavedVideo(id: Int64, _ change: SavedVideoChange, now: Int64) async throws(LibraryError) -> SavedVideo
    /// Unsaves saved video `id` (its item stays in the library).
    func deleteSavedVideo(id: Int64) async throws(LibraryError)
}

/// The up-next queue, kept in the library so it survives restarts. Positions are 1-based and
/// always 1…count. Library items in it are checked when added (all or none) and leave it when
/// their channel is removed; URLs and files are kept as given.
public protocol UpNextStore: Sendable {
    /// The queue in order.
    func upNext() async throws(LibraryError) -> [UpNextEntry]
    /// Appends entries in the order given, all or none (`noItem`/`noItems` for item ids the
    /// library lacks). A target already queued stays where it is (`UpNextChange`).
    @discardableResult
    func appendToUpNext(_ entries: [(target: MediaTarget, title: String)], now: Int64) async throws(LibraryError) -> UpNextChange
    /// Puts entries at the front, in the order given (to play after the current one). A target
    /// already queued moves there rather than being queued twice (`UpNextChange`).
    @discardableResult
    func insertNextInUpNext(_ entries: [(target: MediaTarget, title: String)], now: Int64) async throws(LibraryError) -> UpNextChange
    /// Removes the entry at `position`; `invalid` when there is none.
    @discardableResult
    func removeFromUpNext(at position: Int) async throws(LibraryError) -> UpNextEntry
    /// Moves the entry at `from` to `to` (the others close up); `invalid` when either is out of range.
    func moveInUpNext(from: Int, to: Int) async throws(LibraryError)
    /// Takes the first entry off the queue (what `next` plays), nil when empty.
    func popUpNext() async throws(LibraryError) -> UpNextEntry?
    /// Empties the queue; returns how many entries it held.
    @discardableResult
    func clearUpNext() async throws(LibraryError) -> Int
}

/// What the player remembers across restarts: its volume and what it played last.
public protocol PlayerStateStore: Sendable {
    /// The last volume set (`PlayerVolume.range`), nil if never.
    func savedVolume() async throws(LibraryError) -> Double?
    /// Remembers the volume; `invalid` outside `PlayerVolume.range`.
    func saveVolume(_ volume: Double, now: Int64) async throws(LibraryError)
    /// What played last and where it was left, nil if nothing (or its item was removed since).
    func lastPlayed() async throws(LibraryError) -> LastPlayed?
    /// Remembers what plays (call it on stop, pause, the periodic checkpoint and at exit); nil forgets.
    func saveLastPlayed(_ last: LastPlayed?, now: Int64) async throws(LibraryError)
}

/// Podcasting 2.0 chapters files, fetched once per item.
public protocol ChapterCache: Sendable {
    /// The item's `podcast:chapters` URL, if its feed gave one.
    func chaptersURL(itemID: Int64) async throws(LibraryError) -> String?
    /// The chapters file fetched earlier for the item, if it was fetched from `url`.
    func cachedChapters(itemID: Int64, url: String) async throws(LibraryError) -> [UInt8]?
    /// Keeps a fetched chapters file (only files that parsed: the cache holds no junk).
    func cacheChapters(itemID: Int64, url: String, body: [UInt8], now: Int64) async throws(LibraryError)
}

/// What downloading episodes needs to know about items.
public protocol DownloadCatalog: Sendable {
    /// The items with these ids, in the order given; ids the library lacks are skipped.
    func downloadItems(ids: [Int64]) async throws(LibraryError) -> [DownloadItem]
    /// Channel `channelID`'s newest `limit` items that have an enclosure, newest first.
    func newestEpisodes(channelID: Int64, limit: Int) async throws(LibraryError) -> [DownloadItem]
    /// The ids of channel `channelID`'s items, ascending; `noChannel` if there is none.
    func itemIDs(channelID: Int64) async throws(LibraryError) -> [Int64]
    /// All channels, by id.
    func allChannels() async throws(LibraryError) -> [Channel]
    /// Those of `ids` marked watched before `time` (Unix seconds): downloads that may go.
    func watched(before time: Int64, among ids: [Int64]) async throws(LibraryError) -> [Int64]
}

/// The people who use the library and their login sessions. The store never sees a password or
/// a token, only their hashes (the `Accounts` module makes both). Any store value may manage
/// users: whether the caller may (an admin) is the caller's decision.
public protocol UserStore: Sendable {
    /// Adds a user (`LibraryUsers.validName`); `userExists` if the name is taken.
    @discardableResult
    func addUser(name: String, isAdmin: Bool, passwordHash: String?, now: Int64) async throws(LibraryError) -> User
    /// All users, by id (the owner first).
    func users() async throws(LibraryError) -> [User]
    /// The user named `name`; `noUser` if there is none.
    func user(named name: String) async throws(LibraryError) -> User
    /// The user with id `id`; `noUser` if there is none.
    func user(id: UserID) async throws(LibraryError) -> User
    /// The stored password hash of `name` (nil: none set); `noUser` if there is none.
    func passwordHash(of name: String) async throws(LibraryError) -> String?
    /// Sets (or, with nil, clears) a user's password hash.
    func setPasswordHash(_ hash: String?, for name: String) async throws(LibraryError)
    /// Removes a user and everything of theirs, in one transaction: no row of any table names
    /// them after it (their subscriptions, watch state, saved items and videos, collections
    /// with their items, history, queue, player state, sessions, gpodder devices, episode
    /// actions and sync records, their rows of the change log), and nobody else's row changes.
    /// Channels nobody follows any more go too, with their items but those in another user's
    /// collection (`ChannelRemoval`), as when their last follower unsubscribes. The change log's newest row, if it was theirs, stays as nobody's
    /// (`UserID.nobody`, without its payload): a change's number is the newest's plus one, so
    /// without it the next change would take a number a reader has already passed. Their
    /// sessions end with them (the next request with their token finds none). The owner and
    /// the last admin cannot be removed (`userKept`). Returns what went with those channels:
    /// their files in `media/` are the caller's to delete, once the library let go of them.
    @discardableResult
    func removeUser(named name: String) async throws(LibraryError) -> RemovedUser
    /// Opens a session for `user`, keyed by the token's hash; it expires `SessionRule.lifetime` after `now`.
    @discardableResult
    func createSession(user: UserID, tokenHash: String, deviceName: String?, now: Int64) async throws(LibraryError) -> Session
    /// The live session whose token hashes to `tokenHash`, with its user (nil if none, or
    /// expired at `now`); finding it records `now` as its last use. Every authenticated request
    /// asks this: one read.
    func session(tokenHash: String, now: Int64) async throws(LibraryError) -> LiveSession?
    /// A user's sessions (every user's when nil), newest first, expired ones included.
    func sessions(of user: UserID?) async throws(LibraryError) -> [Session]
    /// Ends session `id`; `noSession` if there is none.
    func revokeSession(id: Int64) async throws(LibraryError)
    /// Ends every session of `user` but `kept` (a new password ends the others: whoever knew the
    /// old one is signed out); returns how many ended.
    @discardableResult
    func revokeSessions(of user: UserID, except kept: Int64?) async throws(LibraryError) -> Int
}

/// What the player reads and writes while it plays: items, their channels' speed, progress and
/// history, chapters files.
public typealias PlayerLibrary = ItemStore & ChannelStore & ListeningStore & ChapterCache & UpNextStore & PlayerStateStore

/// The whole library.
public protocol LibraryStore: SyncStore, ItemStore, SearchStore, ListeningStore, CollectionStore, ChapterCache, DownloadCatalog,
    UpNextStore, PlayerStateStore, ItemRecordStore, SavedVideoStore {}

extension ItemStore {
    /// The feed with the CLI's defaults: newest first, 50 items, catch-up's default window.
    public func feed(mode: FeedMode = .newest, filter: FeedFilter = FeedFilter(), page: PageRequest = .first(50),
                     days: Int = CatchUp.defaultDays, now: Int64) async throws(LibraryError) -> [LibraryItem] {
        try await feed(FeedQuery(mode: mode, filter: filter, page: page, days: days), now: now)
    }

    public func history() async throws(LibraryError) -> [HistoryEntry] { try await history(limit: 100) }
}

extension UserStore {
    /// Ends every session of `user`; returns how many there were.
    @discardableResult
    public func revokeSessions(of user: UserID) async throws(LibraryError) -> Int {
        try await revokeSessions(of: user, except: nil)
    }
}

extension ListeningStore {
    public func setWatched(_ ids: [Int64], now: Int64) async throws(LibraryError) {
        try await setWatched(ids, watched: true, now: now)
    }

    /// Records how far item `id` has been played (`WatchUpdate.position`): a position that
    /// counts as heard marks it watched, any other leaves its watched mark as it is.
    @discardableResult
    public func setProgress(_ id: Int64, seconds: Int, length: Double? = nil, now: Int64) async throws(LibraryError) -> WatchState {
        try await updateWatchState(id, .position(seconds: seconds, length: length), now: now)
    }

    @discardableResult
    public func appendHistory(item id: Int64, now: Int64) async throws(LibraryError) -> HistoryEntry {
        try await appendHistory(item: id, position: nil, now: now)
    }
}

/// What `UserStore.removeUser` took with the user: how many channels only they followed, and
/// the items that went with those (whose downloaded files are then nobody's); items in another
/// user's collection stay (`ChannelRemoval`).
public struct RemovedUser: Sendable, Equatable {
    public var channels: Int
    public var items: [Int64]
    public init(channels: Int, items: [Int64]) {
        self.channels = channels
        self.items = items
    }
}
