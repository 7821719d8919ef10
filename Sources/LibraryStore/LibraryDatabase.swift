/// Everything one user's store does: what the composition code hands to the CLI, the daemon, the
/// server (per request) and the conformance suite.
public typealias UserLibrary = LibraryStore & UserStore & SyncDeviceStore & EpisodeActionStore & AccountDataStore & SharingStore & IdentityStore
    & SignInStore

/// One opened library, whatever engine keeps it: a SQLite file or a PostgreSQL database. The
/// composition code opens it (`LibraryOpener` reads `--db`/`FEEDCTL_DB`) and nothing else names
/// a concrete store. It is the door to each user's store (no new connections per user), and to
/// the change log every user's events come from.
public protocol LibraryDatabase: Sendable {
    /// Where it is, for messages: a file path, or a `postgresql://` URL without its password.
    var location: String { get }
    /// The store acting for `user`. The user is not checked here: one that does not exist
    /// follows nothing and owns nothing, so its lookups find nothing and its writes fail.
    func store(for user: UserID) -> any UserLibrary
    /// The change log (`/api/events`), every user's.
    var changes: any ChangeFeed { get }
    /// Polling, which acts for no user (`feedctl worker`, the daemon's scheduler).
    var polling: any PollStore { get }
    /// Names of the migrations applied, oldest first.
    func appliedMigrations() async throws(LibraryError) -> [String]
}

extension LibraryDatabase {
    /// The library owner's store (the CLI and the daemon act for the owner unless told).
    public var owner: any UserLibrary { store(for: .owner) }
}
