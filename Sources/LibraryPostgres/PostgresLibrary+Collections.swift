import FeedModel
import LibraryStore

// SCAFFOLD: every method here throws `notWritten` until its port from LibrarySQLite lands;
// this file is replaced whole by the port of collections, the up-next queue, the player's state.
extension PostgresLibrary {
    public func createCollection(_ name: String, now: Int64) async throws(LibraryError) { throw Self.notWritten(#function) }
    public func collections() async throws(LibraryError) -> [CollectionSummary] { throw Self.notWritten(#function) }
    public func collection(_ name: String) async throws(LibraryError) -> [LibraryItem] { throw Self.notWritten(#function) }
    public func addToCollection(item id: Int64, collection name: String, now: Int64) async throws(LibraryError) { throw Self.notWritten(#function) }
    public func removeFromCollection(item id: Int64, collection name: String) async throws(LibraryError) { throw Self.notWritten(#function) }
    public func addToCollection(items ids: [Int64], collection name: String, now: Int64) async throws(LibraryError) { throw Self.notWritten(#function) }
    public func removeFromCollection(items ids: [Int64], collection name: String) async throws(LibraryError) { throw Self.notWritten(#function) }
    public func moveToCollection(item id: Int64, from source: String, to destination: String, now: Int64) async throws(LibraryError) { throw Self.notWritten(#function) }
    public func deleteCollection(_ name: String) async throws(LibraryError) { throw Self.notWritten(#function) }
    public func collectionDetails() async throws(LibraryError) -> [CollectionDetails] { throw Self.notWritten(#function) }
    public func collectionDetails(id: Int64) async throws(LibraryError) -> CollectionDetails { throw Self.notWritten(#function) }
    public func createCollection(_ name: String, description: String?, now: Int64) async throws(LibraryError) -> CollectionDetails { throw Self.notWritten(#function) }
    public func updateCollection(id: Int64, _ change: CollectionChange, now: Int64) async throws(LibraryError) -> CollectionDetails { throw Self.notWritten(#function) }
    public func deleteCollection(id: Int64) async throws(LibraryError) { throw Self.notWritten(#function) }
    public func collectionEntries(id: Int64) async throws(LibraryError) -> [CollectionEntry] { throw Self.notWritten(#function) }
    public func addToCollection(id: Int64, item: Int64, now: Int64) async throws(LibraryError) -> CollectionEntry { throw Self.notWritten(#function) }
    public func removeFromCollection(id: Int64, item: Int64, now: Int64) async throws(LibraryError) { throw Self.notWritten(#function) }
    public func reorderCollection(id: Int64, items: [Int64], now: Int64) async throws(LibraryError) { throw Self.notWritten(#function) }
    public func upNext() async throws(LibraryError) -> [UpNextEntry] { throw Self.notWritten(#function) }
    public func appendToUpNext(_ entries: [(target: MediaTarget, title: String)], now: Int64) async throws(LibraryError) -> UpNextChange { throw Self.notWritten(#function) }
    public func insertNextInUpNext(_ entries: [(target: MediaTarget, title: String)], now: Int64) async throws(LibraryError) -> UpNextChange { throw Self.notWritten(#function) }
    public func removeFromUpNext(at position: Int) async throws(LibraryError) -> UpNextEntry { throw Self.notWritten(#function) }
    public func moveInUpNext(from: Int, to: Int) async throws(LibraryError) { throw Self.notWritten(#function) }
    public func popUpNext() async throws(LibraryError) -> UpNextEntry? { throw Self.notWritten(#function) }
    public func clearUpNext() async throws(LibraryError) -> Int { throw Self.notWritten(#function) }
    public func savedVolume() async throws(LibraryError) -> Double? { throw Self.notWritten(#function) }
    public func saveVolume(_ volume: Double, now: Int64) async throws(LibraryError) { throw Self.notWritten(#function) }
    public func lastPlayed() async throws(LibraryError) -> LastPlayed? { throw Self.notWritten(#function) }
    public func saveLastPlayed(_ last: LastPlayed?, now: Int64) async throws(LibraryError) { throw Self.notWritten(#function) }
}
