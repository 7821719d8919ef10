import FeedModel

/// A person's account at an OpenID provider (single sign-on), linked to a feedctl user: the
/// provider knows them by `subject`, unique within its `issuer` (OpenID Connect Core §2), and
/// that pair is all that signs them in; the email the provider said is kept for an admin's
/// eyes, never trusted to find anyone.
public struct UserIdentity: Sendable, Equatable {
    public var userID: UserID
    public var issuer: String
    public var subject: String
    public var email: String?
    public var createdAt: Int64
    /// When it last signed in (nil: never since it was linked).
    public var lastUsedAt: Int64?

    public init(userID: UserID, issuer: String, subject: String, email: String?, createdAt: Int64, lastUsedAt: Int64?) {
        self.userID = userID; self.issuer = issuer; self.subject = subject; self.email = email
        self.createdAt = createdAt; self.lastUsedAt = lastUsedAt
    }
}

/// Users' identities at OpenID providers. An identity belongs to one user at most (the pair is
/// unique); a user may have several, and keeps their password beside them. An identity goes
/// with its user.
public protocol IdentityStore: Sendable {
    /// The user (issuer, subject) is linked to, nil if none; finding one records `now` as its
    /// last sign-in.
    func user(issuer: String, subject: String, now: Int64) async throws(LibraryError) -> User?
    /// Links (issuer, subject) to `user`: `noUser` if there is no such user, `identityTaken`
    /// if it is linked to another user (linking it again to the same user changes nothing).
    func link(issuer: String, subject: String, email: String?, to user: UserID, now: Int64) async throws(LibraryError)
    /// A new user, not an admin and without a password, linked to (issuer, subject), in one
    /// transaction: named the first of `names` no one has (`LibraryUsers.validName`; invalid
    /// ones skipped); `userExists` when every one is taken, `identityTaken` if the identity
    /// is someone's already (nothing is made then).
    func addUser(names: [String], issuer: String, subject: String, email: String?, now: Int64) async throws(LibraryError) -> User
    /// The identities of `user` (every user's when nil), by issuer and subject.
    func identities(of user: UserID?) async throws(LibraryError) -> [UserIdentity]
    /// Unlinks (issuer, subject); `noIdentity` if it is not linked.
    func unlink(issuer: String, subject: String) async throws(LibraryError)
}

/// What both stores check before linking an identity or making a user for one, stated once.
public enum IdentityRule {
    /// `invalid` for an identity without its issuer or subject.
    public static func require(issuer: String, subject: String) throws(LibraryError) {
        guard !issuer.isEmpty, !subject.isEmpty else { throw .invalid("an identity needs its issuer and subject") }
    }

    /// The names a first sign-in may take, in order (`LibraryUsers.validName`; invalid ones
    /// skipped); `invalid` when none is usable.
    public static func candidateNames(_ names: [String]) throws(LibraryError) -> [String] {
        let candidates = names.compactMap(LibraryUsers.validName)
        guard !candidates.isEmpty else { throw .invalid("no valid user name among \(names.map(LibraryError.quoted).joined(separator: ", "))") }
        return candidates
    }
}
