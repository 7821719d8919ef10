import FeedModel

/// An item with everything a client of the HTTP API shows (the backend's `FeedItemResponse`):
/// the list row plus the fields `LibraryItem`'s CLI contract leaves out.
public struct ItemRecord: Sendable, Equatable {
    public var item: LibraryItem
    /// The show notes as stored (plain text).
    public var notes: String?
    public var views: Int?
    public var enclosureType: String?
    /// The enclosure length the feed announced (a hint).
    public var enclosureLength: Int64?
    /// Unix seconds: when a sync first stored the item.
    public var discoveredAt: Int64
    /// Unix seconds: when it was marked watched, nil if it is not.
    public var watchedAt: Int64?
    /// The channel's image.
    public var channelImage: String?

    public init(item: LibraryItem, notes: String?, views: Int?, enclosureType: String?, enclosureLength: Int64?,
                discoveredAt: Int64, watchedAt: Int64?, channelImage: String?) {
        self.item = item; self.notes = notes; self.views = views; self.enclosureType = enclosureType
        self.enclosureLength = enclosureLength; self.discoveredAt = discoveredAt; self.watchedAt = watchedAt
        self.channelImage = channelImage
    }
}

/// How a page of items is ordered (the API's `sort_by`).
public enum ItemOrder: String, Sendable, CaseIterable {
    /// By publish date, newest first (the feed's `newest`).
    case newest
    case oldest
    /// Most views first; items without a count last.
    case mostViewed
    /// Shortest first; items without a duration last.
    case shortest
    /// Longest first; items without a duration last.
    case longest
    case random
}

/// Which items by watch state.
public enum WatchFilter: String, Sendable, CaseIterable {
    case all, unwatched, watched
}

/// One page of items under filters the CLI's `FeedQuery` does not have (several channels, a date
/// and duration range, watched-only, other orders), with the total that matched.
public struct ItemPageQuery: Sendable, Equatable {
    public var order: ItemOrder
    public var watch: WatchFilter
    /// Only short-form items (`ShortForm`).
    public var shortOnly: Bool
    public var platform: Platform?
    /// Empty: every channel.
    public var channelIDs: [Int64]
    /// Unix seconds: only items published at or after it (undated items are then left out).
    public var publishedSince: Int64?
    public var minDuration: Int?
    public var maxDuration: Int?
    public var page: PageRequest

    public init(order: ItemOrder = .newest, watch: WatchFilter = .all, shortOnly: Bool = false, platform: Platform? = nil,
                channelIDs: [Int64] = [], publishedSince: Int64? = nil, minDuration: Int? = nil, maxDuration: Int? = nil,
                page: PageRequest = .first(50)) {
        self.order = order; self.watch = watch; self.shortOnly = shortOnly; self.platform = platform
        self.channelIDs = channelIDs; self.publishedSince = publishedSince; self.minDuration = minDuration
        self.maxDuration = maxDuration; self.page = page
    }
}

/// A page of items and how many matched in all.
public struct ItemPage: Sendable, Equatable {
    public var items: [ItemRecord]
    public var total: Int
    public init(items: [ItemRecord], total: Int) { self.items = items; self.total = total }
}

/// What the HTTP API reads about items beyond `ItemStore`.
public protocol ItemRecordStore: Sendable {
    /// One page under `query`, with the total that matched (a page past the end is empty).
    func itemPage(_ query: ItemPageQuery) async throws(LibraryError) -> ItemPage
    /// The items with these ids, in the order given; ids the library lacks are skipped.
    func itemRecords(ids: [Int64]) async throws(LibraryError) -> [ItemRecord]
    /// Item `id`'s show notes as stored (UNSANITIZED markup: the caller sanitizes them), nil
    /// when it has none or the user cannot see the item. Read apart from `ItemRecord`: pages do
    /// not carry them.
    func storedNotes(id: Int64) async throws(LibraryError) -> StoredNotes?
}
