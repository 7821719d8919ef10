import FeedModel
import LibraryStore

// SCAFFOLD: every method here throws `notWritten` until its port from LibrarySQLite lands;
// this file is replaced whole by the port of full-text search.
extension PostgresLibrary {
    public func search(_ query: SearchQuery) async throws(LibraryError) -> [LibraryItem] { throw Self.notWritten(#function) }
}
