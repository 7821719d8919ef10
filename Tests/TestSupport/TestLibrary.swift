import FeedModel
import Foundation
import LibraryStore
import LibrarySQLite

/// A library in a temp dir, kept alive with it.
public struct TestLibrary: Sendable {
    public let dir = TempDir()
    public let library: SQLiteLibrary
    public init() throws {
        library = try SQLiteLibrary(path: dir.file("library.sqlite"))
    }
    /// A library at `path` (on a file system the test made).
    public init(path: String) throws {
        library = try SQLiteLibrary(path: path)
    }
}

extension SyncStore {
    /// Subscribes a channel without fetching it (what `channel add` stores, minus the feed), with
    /// the owner's reach unless told (a server user's is public only without --allow-private-feeds).
    @discardableResult
    public func addChannel(platform: Platform, sourceURL: String, feedURL: String, name: String,
                           image: String? = nil, reach: AddressReach = .anyAddress, now: Int64) async throws -> Channel {
        let new = NewChannel(platform: platform, sourceURL: sourceURL, feedURL: feedURL, name: name, image: image, reach: reach)
        let id = try await apply([Poll(subject: .subscription(new), outcome: .notFetched)], now: now)[0].get().channelID
        return try await channel(id: id)
    }

    /// Adds a channel whose feed URL is derived from `name`.
    public func addTestChannel(_ name: String, platform: Platform = .podcast, now: Int64 = 1000) async throws -> Int64 {
        try await addChannel(platform: platform, sourceURL: "https://example.com/\(name)",
                             feedURL: "https://example.com/\(name).xml", name: name, now: now).id
    }

    /// Stores a parsed feed as a sync does (a changed poll: its items, the channel's name and
    /// image, and the bookkeeping of a successful poll without validators).
    public func ingest(_ feed: Feed, channelID: Int64, now: Int64) async throws -> IngestResult {
        try await apply([Poll(subject: .channel(id: channelID), outcome: .changed(Validators(), feed))], now: now)[0].get().ingest
    }

    /// Stores items as a changed poll of a feed without a title or image (the channel keeps its
    /// own). `SQLiteLibrary`'s own `ingest(items:)` is the store's merge alone, without the poll's
    /// bookkeeping; a value of that type calls that one.
    @discardableResult
    public func ingest(items: [Item], channelID: Int64, now: Int64) async throws -> IngestResult {
        try await ingest(Feed(kind: .rss, items: items), channelID: channelID, now: now)
    }
}

extension SavedVideoStore {
    /// The library id of the acting user's item the parser called `itemID` (the lowest, if
    /// channels of several platforms have one). `SQLiteLibrary`'s own `id(of:)` finds any
    /// user's; a value of that type calls that one.
    public func id(of itemID: String) async throws -> Int64 {
        var found: [Int64] = []
        for platform in Platform.allCases {
            if let id = try await self.itemID(platform: platform, videoID: itemID) { found.append(id) }
        }
        guard let id = found.min() else { throw LibraryError.invalid("test: no item_id \(itemID)") }
        return id
    }
}

/// An item with a title and page derived from its id.
public func item(_ id: String, published: Int64? = nil, duration: Int? = nil, isShort: Bool = false,
                 title: String? = nil, views: Int64? = nil) -> Item {
    Item(id: id, title: title ?? "Title \(id)", url: "https://example.com/\(id)", published: published,
         duration: duration, views: views, isShort: isShort)
}

extension Sequence {
    /// `map` for an async transform, in order, one element at a time.
    public func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        for element in self { result.append(try await transform(element)) }
        return result
    }
}
