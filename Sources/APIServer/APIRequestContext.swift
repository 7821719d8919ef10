import FeedModel
import Foundation
import Hummingbird
import LibraryStore
import NIOCore

/// What the API reads and writes for one user: the store's protocols, never the SQLite class.
/// Today every request acts for the library's owner; the multi-user store (issue 15) hands each
/// user their own view behind the same protocols, so no route changes with it.
public typealias APILibrary = SyncStore & ItemStore & ItemRecordStore & ListeningStore & SearchStore & CollectionStore & SavedVideoStore
    & ChapterCache & UpNextStore & PlayerStateStore & SyncDeviceStore & AccountDataStore & SharingStore

/// Whom a request acts for, and the store that is theirs.
public struct APIUser: Sendable {
    /// The user's id in the library (the owner's under `--open`).
    public var id: UserID
    /// The name logs and `/api/auth/me` show (never a token).
    public var name: String
    public var isAdmin: Bool
    /// Whether the user has a password (the backend's `has_pin`).
    public var hasPassword: Bool
    /// The login session the request's token belongs to (`/api/auth/logout` ends it); nil under `--open`.
    public var sessionID: Int64?
    /// This user's library: every private route reads and writes through it and nothing else,
    /// so isolation lives in the store's signatures, not in each handler's memory.
    public var library: any APILibrary

    public init(id: UserID = .owner, name: String, isAdmin: Bool, hasPassword: Bool = false, sessionID: Int64? = nil,
                library: any APILibrary) {
        self.id = id; self.name = name; self.isAdmin = isAdmin; self.hasPassword = hasPassword
        self.sessionID = sessionID; self.library = library
    }
}

/// The request context: Hummingbird's own storage, plus the user the authenticator found.
public struct APIRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Set by `AuthMiddleware` on private routes; nil on public ones (`/health`, `/api/auth/mode`).
    public var user: APIUser?
    /// The peer's IP address (the login throttle counts failures per address); nil for a
    /// Unix-socket peer. Behind a reverse proxy this is the proxy's.
    public var peerAddress: String?
    /// The connection the request came on (a long request stops when its client leaves).
    public let connection: (any NIOCore.Channel)?

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.user = nil
        self.peerAddress = source.channel.remoteAddress?.ipAddress
        self.connection = source.channel
    }

    /// Answers are written with URLs as they are (`https://`, not `https:\/\/`).
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }()

    /// `encoder`'s JSON, gzipped for a client that takes it (`Gzip`).
    public var responseEncoder: some ResponseEncoder { APIResponseEncoder() }

    /// Bodies are read up to this; a larger one is refused with 413 before it is parsed.
    public var maxUploadSize: Int { APILimits.maxBodyBytes }

    /// The store of the user this request acts for; 401 if none was authenticated (a private
    /// route mounted without `AuthMiddleware` fails closed).
    public func library() throws(APIError) -> any APILibrary {
        guard let user else { throw APIError.unauthorized }
        return user.library
    }
}
