import FeedModel

/// Whom a store value acts for. Ids are never handed out twice (AUTOINCREMENT).
public struct UserID: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var rawValue: Int64
    public init(_ rawValue: Int64) { self.rawValue = rawValue }
    /// The library's owner (`LibraryUsers.ownerID`): the CLI and the daemon act for them.
    public static let owner = UserID(LibraryUsers.ownerID)
    /// No user (ids start at 1). The change log keeps a removed user's newest row as nobody's,
    /// for its place in the log (`UserStore.removeUser`); nobody's changes reach no stream.
    public static let nobody = UserID(0)
    public static func < (a: UserID, b: UserID) -> Bool { a.rawValue < b.rawValue }
    public var description: String { String(rawValue) }
}

/// A person who uses the library.
public struct User: Sendable, Equatable {
    public var id: UserID
    public var name: String
    public var isAdmin: Bool
    /// Whether a password was set (the owner has none until `user passwd`).
    public var hasPassword: Bool
    public var createdAt: Int64

    public init(id: UserID, name: String, isAdmin: Bool, hasPassword: Bool, createdAt: Int64) {
        self.id = id; self.name = name; self.isAdmin = isAdmin; self.hasPassword = hasPassword; self.createdAt = createdAt
    }
}

/// A login session as the library keeps it: never the token, only its hash.
/// A live session and whose it is: what a request's token opens.
public struct LiveSession: Sendable, Equatable {
    public var session: Session
    public var user: User
    public init(session: Session, user: User) { self.session = session; self.user = user }
}

public struct Session: Sendable, Equatable {
    public var id: Int64
    public var userID: UserID
    public var deviceName: String?
    public var createdAt: Int64
    public var expiresAt: Int64
    /// When a request last used it (nil: never since it was created).
    public var lastUsedAt: Int64?

    public init(id: Int64, userID: UserID, deviceName: String?, createdAt: Int64, expiresAt: Int64, lastUsedAt: Int64?) {
        self.id = id; self.userID = userID; self.deviceName = deviceName; self.createdAt = createdAt
        self.expiresAt = expiresAt; self.lastUsedAt = lastUsedAt
    }
}
