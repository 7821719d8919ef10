import FeedModel
import LibraryStore

// SCAFFOLD until pglistening's port lands (it defines writeWatchState; delete this file then).
extension PostgresLibrary {
    static func writeWatchState(_ update: WatchUpdate, item: Int64, user: UserID, time: Int64, lastWriterWins: Bool = false,
                                _ db: PGConnection) throws(LibraryError) -> WatchState? {
        throw notWritten(#function)
    }
}
