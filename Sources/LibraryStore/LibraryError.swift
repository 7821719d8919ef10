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
    /// A user the library cannot do without, named: its owner, or its last admin.
    case userKept(String, KeptUser)
    /// No user is linked to this identity at an OpenID provider (issuer, subject).
    case noIdentity(issuer: String, subject: String)
    /// The identity (issuer, subject) is linked to another user already.
    case identityTaken(issuer: String, subject: String)
    /// The user's collection with that id has no live link.
    case notPublished(Int64)
    /// No collection was ever published under that link here.
    case noSharedCollection
    /// The link's collection was withdrawn by its owner (unpublished, deleted, or its owner
    /// removed): for good.
    case withdrawnCollection
    /// No followed collection with that id among the user's.
    case noFollowedCollection(Int64)
    /// The user follows that collection already (their followed collection with this id).
    case alreadyFollowing(Int64)
    /// A value the caller passed makes no sense (negative progress, empty name…).
    case invalid(String)
    /// The database engine could not open, read or write the library: its code, whether a retry
    /// can help, whether the disk is full (`DatabaseFailure`).
    case database(DatabaseFailure)

    public var description: String {
        switch self {
        case .noItem(let id): return "no item \(id)"
        case .noItems(let ids): return "no items \(ids.map(String.init).joined(separator: ", "))"
        case .noChannel(let id): return "no channel \(id)"
        case .noCollection(let name): return "no collection \(Self.quoted(name))"
        case .noCollectionID(let id): return "no collection \(id)"
        case .noSavedVideo(let id): return "no saved video \(id)"
        case .collectionExists(let name): return "collection \(Self.quoted(name)) already exists"
        case .alreadyInCollection(let item, let name): return "item \(item) is already in collection \(Self.quoted(name))"
        case .notInCollection(let item, let name): return "item \(item) is not in collection \(Self.quoted(name))"
        case .noUser(let name): return "no user \(Self.quoted(name))"
        case .userExists(let name): return "user \(Self.quoted(name)) already exists"
        case .noSession(let id): return "no session \(id)"
        case .userKept(let name, .owner): return "the library's owner (\(name)) cannot be removed"
        case .userKept(let name, .lastAdmin):
            return "\(Self.quoted(name)) is the library's last admin and cannot be removed: make another admin first (feedctl user add --admin)"
        case .noIdentity(let issuer, let subject): return "no user is linked to \(Self.quoted(subject)) at \(Self.quoted(issuer))"
        case .identityTaken(let issuer, let subject): return "\(Self.quoted(subject)) at \(Self.quoted(issuer)) is linked to another user"
        case .notPublished(let id): return "collection \(id) is not published"
        case .noSharedCollection: return "no collection is published at that link"
        case .withdrawnCollection: return "that collection was withdrawn by its owner"
        case .noFollowedCollection(let id): return "no followed collection \(id)"
        case .alreadyFollowing(let id): return "you follow that collection already (followed collection \(id))"
        case .invalid(let why): return why
        case .database(let failure): return failure.description
        }
    }

    /// The line for someone who must not learn the server's file paths (an HTTP client): as
    /// `description`, without the library's file.
    public var descriptionWithoutPaths: String {
        if case .database(let failure) = self { return failure.descriptionWithoutPaths }
        return description
    }

    /// The engine's failure, when the database failed (not a lookup or a refusal).
    public var databaseFailure: DatabaseFailure? {
        if case .database(let failure) = self { return failure }
        return nil
    }

    /// The disk holding the library (or the library's size limit) is full: nothing is written
    /// until there is room; reads still work.
    public var isDiskFull: Bool { databaseFailure?.kind == .diskFull }

    /// Trying the same operation again may succeed (the database was busy, a concurrent write
    /// won, the connection was lost); a lookup, a refusal or a broken rule fails again.
    public var isRetryable: Bool { databaseFailure?.isRetryable ?? false }

    /// A name or URL from a request may hold control characters: shown escaped, never raw.
    public static func quoted(_ s: String) -> String {
        let escaped = s.unicodeScalars.map { scalar in
            scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) ? "\\u{\(String(scalar.value, radix: 16))}" : String(scalar)
        }
        return "\"" + escaped.joined() + "\""
    }
}

/// Why a user cannot be removed (`LibraryError.userKept`).
public enum KeptUser: Sendable, Equatable {
    /// The library's owner (user 1): the CLI and the daemon act for them.
    case owner
    /// The only admin left: nobody could manage users after them.
    case lastAdmin
}

/// A failure of the database engine, with the engine's own result code, sorted into what a
/// caller can act on (`kind`): wait and retry, tell the person the disk is full, or report it.
public struct DatabaseFailure: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// Another connection or process held the lock past the busy timeout (SQLite's BUSY
        /// and LOCKED): a retry can help.
        case busy
        /// The transaction's snapshot went stale under a concurrent write (SQLite's
        /// BUSY_SNAPSHOT; a server database's serialization failure): running it again can help.
        case serializationFailure
        /// The connection to a database server was lost (SQLite has none): a retry can help.
        case connectionLost
        /// The disk, or the database's size limit, is full (SQLITE_FULL).
        case diskFull
        /// A write broke a rule of the schema (SQLITE_CONSTRAINT): it fails again as it is.
        case constraint
        /// The file is damaged, or not a database (SQLITE_CORRUPT, SQLITE_NOTADB).
        case corrupt
        /// The file or its directory cannot be opened or written (SQLITE_CANTOPEN, PERM,
        /// READONLY, AUTH; a directory that cannot be made).
        case cannotOpen
        /// Anything else (an I/O error, no memory, a result the store did not expect).
        case other
    }

    public var kind: Kind
    /// The engine's primary result code (SQLite's SQLITE_FULL is 13); nil when the engine did not
    /// report the failure (a directory that cannot be made, a result the store did not expect).
    public var code: Int32?
    /// The engine's extended result code (SQLITE_CONSTRAINT_FOREIGNKEY is 787), nil as `code`.
    public var extendedCode: Int32?
    /// A server engine's five-character SQLSTATE (PostgreSQL's `40001` is a serialization
    /// failure), nil for SQLite, which has result codes instead.
    public var sqlState: String?
    /// The engine's reason in one line, without the file's path (`database or disk is full`).
    public var message: String
    /// The library's file, for the person at the machine (the CLI, the logs).
    public var path: String?

    public init(kind: Kind, code: Int32? = nil, extendedCode: Int32? = nil, sqlState: String? = nil, message: String, path: String? = nil) {
        self.kind = kind; self.code = code; self.extendedCode = extendedCode; self.sqlState = sqlState; self.path = path
        // One line, whatever the engine wrote.
        self.message = message.split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    /// See `LibraryError.isRetryable`.
    public var isRetryable: Bool {
        switch kind {
        case .busy, .serializationFailure, .connectionLost: true
        case .diskFull, .constraint, .corrupt, .cannotOpen, .other: false
        }
    }

    /// `library PATH: REASON`.
    public var description: String { path.map { "library \($0): \(message)" } ?? "library: \(message)" }

    /// `library: REASON`.
    public var descriptionWithoutPaths: String { "library: \(message)" }
}
