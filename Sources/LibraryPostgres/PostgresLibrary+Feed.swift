import FeedModel
import LibraryStore

// SCAFFOLD: every method here throws `notWritten` until its port from LibrarySQLite lands;
// this file is replaced whole by the port of the feed modes, items, item pages.
extension PostgresLibrary {
    public func feed(_ query: FeedQuery, now: Int64) async throws(LibraryError) -> [LibraryItem] { throw Self.notWritten(#function) }
    public func feedTotal(_ query: FeedQuery, now: Int64) async throws(LibraryError) -> Int { throw Self.notWritten(#function) }
    public func lastItemID() async throws(LibraryError) -> Int64 { throw Self.notWritten(#function) }
    public func items(after id: Int64, channelIDs: [Int64], limit: Int) async throws(LibraryError) -> [LibraryItem] { throw Self.notWritten(#function) }
    public func item(id: Int64) async throws(LibraryError) -> LibraryItem { throw Self.notWritten(#function) }
    public func itemDetails(id: Int64) async throws(LibraryError) -> ItemDetails { throw Self.notWritten(#function) }
    public func itemPage(_ query: ItemPageQuery) async throws(LibraryError) -> ItemPage { throw Self.notWritten(#function) }
    public func itemRecords(ids: [Int64]) async throws(LibraryError) -> [ItemRecord] { throw Self.notWritten(#function) }
    public func storedNotes(id: Int64) async throws(LibraryError) -> StoredNotes? { throw Self.notWritten(#function) }
}
