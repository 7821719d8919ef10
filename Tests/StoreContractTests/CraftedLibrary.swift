import FeedModel
import LibraryStore
import TestSupport

/// A library made for a test of the feed's orders (the modes, the item pages): the owner's store
/// on one engine, channels subscribed by name, each with its items stored as a sync stores them
/// (their discovery time is when), and a page of a mode as the items' feed ids.
struct CraftedLibrary {
    /// The tests' clock: day 100; dates are so many days before it.
    static let day: Int64 = 86_400
    static let now: Int64 = 100 * day

    let library: any UserLibrary
    /// The mode `ids` lists unless told.
    let mode: FeedMode
    private let channels: [String: Int64]

    /// One channel a `(name, platform, items, when)`, subscribed and stored in that order.
    init(_ db: TestDatabase, mode: FeedMode = .newest,
         _ channels: [(name: String, platform: Platform, items: [Item], storedAt: Int64)]) async throws {
        library = db.owner
        self.mode = mode
        var ids: [String: Int64] = [:]
        for channel in channels {
            ids[channel.name] = try await library.addTestChannel(channel.name, platform: channel.platform)
        }
        for channel in channels {
            try await library.ingest(items: channel.items, channelID: ids[channel.name] ?? 0, now: channel.storedAt)
        }
        self.channels = ids
    }

    /// Channel `name`'s id (0 for a name it does not have: no channel has that id).
    subscript(_ name: String) -> Int64 { channels[name] ?? 0 }

    /// The library id of the item the feed called `itemID`.
    func id(_ itemID: String) async throws -> Int64 { try await library.id(of: itemID) }

    /// One page of `mode` (the library's, unless told) as the items' feed ids.
    func ids(_ filter: FeedFilter = FeedFilter(), mode: FeedMode? = nil, limit: Int = 50, page: Int = 1,
             days: Int = CatchUp.defaultDays) async throws -> [String] {
        try await library.feed(mode: mode ?? self.mode, filter: filter, page: try PageRequest(page: page, perPage: limit), days: days,
                               now: Self.now).map(\.itemID)
    }
}
