import FeedModel
import LibraryStore

// SCAFFOLD: every method here throws `notWritten` until its port from LibrarySQLite lands;
// this file is replaced whole by the port of users and sessions, gpodder actions and devices, the change log.
extension PostgresLibrary {
    public func addUser(name: String, isAdmin: Bool, passwordHash: String?, now: Int64) async throws(LibraryError) -> User { throw Self.notWritten(#function) }
    public func users() async throws(LibraryError) -> [User] { throw Self.notWritten(#function) }
    public func user(named name: String) async throws(LibraryError) -> User { throw Self.notWritten(#function) }
    public func user(id: UserID) async throws(LibraryError) -> User { throw Self.notWritten(#function) }
    public func passwordHash(of name: String) async throws(LibraryError) -> String? { throw Self.notWritten(#function) }
    public func setPasswordHash(_ hash: String?, for name: String) async throws(LibraryError) { throw Self.notWritten(#function) }
    public func removeUser(named name: String) async throws(LibraryError) -> RemovedUser { throw Self.notWritten(#function) }
    public func createSession(user: UserID, tokenHash: String, deviceName: String?, now: Int64) async throws(LibraryError) -> Session { throw Self.notWritten(#function) }
    public func session(tokenHash: String, now: Int64) async throws(LibraryError) -> LiveSession? { throw Self.notWritten(#function) }
    public func sessions(of user: UserID?) async throws(LibraryError) -> [Session] { throw Self.notWritten(#function) }
    public func revokeSession(id: Int64) async throws(LibraryError) { throw Self.notWritten(#function) }
    public func revokeSessions(of user: UserID, except kept: Int64?) async throws(LibraryError) -> Int { throw Self.notWritten(#function) }
    public func recordEpisodeActions(_ actions: [EpisodeAction], now: Int64) async throws(LibraryError) -> Int64 { throw Self.notWritten(#function) }
    public func episodeActions(_ query: EpisodeActionQuery) async throws(LibraryError) -> (actions: [EpisodeAction], timestamp: Int64) { throw Self.notWritten(#function) }
    public func syncDevices() async throws(LibraryError) -> [SyncDevice] { throw Self.notWritten(#function) }
    public func saveSyncDevice(id: String, caption: String?, type: SyncDeviceType?, now: Int64) async throws(LibraryError) { throw Self.notWritten(#function) }
    public func subscriptionChanges(since: Int64) async throws(LibraryError) -> SubscriptionChanges { throw Self.notWritten(#function) }
    public func syncClock() async throws(LibraryError) -> Int64 { throw Self.notWritten(#function) }
    public func changes(after seq: Int64, limit: Int) async throws(LibraryError) -> ChangeBatch { throw Self.notWritten(#function) }
    public func latestChange() async throws(LibraryError) -> Int64 { throw Self.notWritten(#function) }
}
