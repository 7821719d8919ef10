/// Why a library operation failed. `description` is the one line a person sees.
public enum LibraryError: Error, Equatable, CustomStringConvertible, Sendable {
    case noItem(Int64)
    /// Several ids the library lacks (a multi-id call names them all at once).
    case noItems([Int64])
    case noChannel(Int64)
    case noCollection(String)
    /// No collection with that id (the API names collections by id).
    case noCollectionID(Int64)
    /// No saved video with that id.
    case noSavedVideo(Int64)
    case collectionExists(String)
    case alreadyInCollection(item: Int64, collection: String)
    case notInCollection(item: Int64, collection: String)
    /// No user by that name (or id, written as a number).
    case noUser(String)
    case userExists(String)
    /// No session with that id among the ones the caller may see.
    case noSession(Int64)
    /// A value the caller passed makes no sense (negative progress, empty name…).
    case invalid(String)
    /// The database could not be opened, read or written; the payload names the file and SQLite's reason.
    case database(String)
    /// A write found no room on the disk that holds the library (SQLite's `SQLITE_FULL`):
    /// nothing of it was kept, and reads still work.
    case diskFull

    public var description: String {
        switch self {
        case .noItem(let id): return "no item \(id)"
        case .noItems(let ids): return "no items \(ids.map(String.init).joined(separator: ", "))"
        case .noChannel(let id): return "no channel \(id)"
        case .noCollection(let name): return "no collection \(quoted(name))"
        case .noCollectionID(let id): return "no collection \(id)"
        case .noSavedVideo(let id): return "no saved video \(id)"
        case .collectionExists(let name): return "collection \(quoted(name)) already exists"
        case .alreadyInCollection(let item, let name): return "item \(item) is already in collection \(quoted(name))"
        case .notInCollection(let item, let name): return "item \(item) is not in collection \(quoted(name))"
        case .noUser(let name): return "no user \(quoted(name))"
        case .userExists(let name): return "user \(quoted(name)) already exists"
        case .noSession(let id): return "no session \(id)"
        case .invalid(let why): return why
        case .database(let why): return why
        case .diskFull: return "the disk that holds the library is full: free some space, then try again"
        }
    }

    private func quoted(_ s: String) -> String { "\"\(s)\"" }
}
