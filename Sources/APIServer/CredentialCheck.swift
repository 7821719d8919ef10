import Accounts
import FeedModel
import LibraryStore

/// One check of a user name and password, the same at every door that takes one: the API's
/// login, gpodder.net's Basic sign-in and the current password `PUT /api/users/{id}/pin` asks
/// for (issue 26). The name is read once (`LibraryUsers.validName`: one line, no control
/// character, else it is nobody's); the throttle (`LoginThrottle`) counts attempts by the name
/// as stored, so `bob\u{0}x` or ` bob` are attempts at bob; and bcrypt runs whether the name
/// exists and has a password or not, so neither the answer nor its time tells which names exist.
struct CredentialCheck: Sendable {
    let users: any UserStore & IdentityStore
    let attempts: LoginAttempts
    /// Whether a user with a single sign-on identity may sign in with a password.
    var passwordSignIn: PasswordSignIn = .everyone
    /// bcrypt's check (`Password.verify`), run off the event loop; a test counts its runs.
    var verify: @Sendable (_ password: String, _ hash: String) -> Bool = bcrypt

    static let bcrypt: @Sendable (_ password: String, _ hash: String) -> Bool = { Password.verify($0, hash: $1) }

    enum Outcome: Sendable {
        case verified(User)
        /// Wrong name or password: the same answer for both.
        case wrong
        /// Too many failures: try again after this many seconds.
        case throttled(Int64)
        /// The password is right, but this user signs in through single sign-on only
        /// (`PasswordSignIn.onlyWithoutIdentity`): told only to whoever knows the password.
        case singleSignOnOnly(User)
    }

    /// Checks `password` for `name`; `address` is the peer the throttle counts.
    func check(name: String, password: String, address: String, now: Int64) async throws(APIError) -> Outcome {
        let valid = LibraryUsers.validName(name)
        var found: User?, hash: String?
        if let valid {
            do throws(LibraryError) {
                let user = try await users.user(named: valid)
                (found, hash) = (user, try await users.passwordHash(of: user.name))
            } catch .noUser {
                found = nil
            } catch {
                throw APIError(error)
            }
        }
        let key = found?.name ?? valid ?? name
        if let wait = await attempts.begin(user: key, address: address, now: now) { return .throttled(wait) }
        // A name without a password (or no such name) is checked against a hash of nothing anyone
        // knows, so the answer takes as long as for a wrong password.
        let stored = hash ?? Self.unknownUserHash, verify = self.verify
        let matches = await TokenAuthenticator.offLoop { verify(password, stored) }
        guard let user = found, hash != nil, matches else { return .wrong }
        await attempts.succeeded(user: key, address: address, at: now)
        if passwordSignIn == .onlyWithoutIdentity {
            do throws(LibraryError) {
                if try await !users.identities(of: user.id).isEmpty { return .singleSignOnOnly(user) }
            } catch {
                throw APIError(error)
            }
        }
        return .verified(user)
    }

    /// A bcrypt hash at the cost real ones have, of random bytes nobody holds: made once, on
    /// the first check of a name without a password.
    static let unknownUserHash: String = {
        let secret = SessionToken().text
        return (try? Password.hash(String(secret.prefix(PasswordRule.maxBytes)))) ?? "$2b$12$"
    }()
}

/// Who may sign in with a password (`oidc.forbid_password_login`): everyone who has one, or
/// only users without a single sign-on identity (the others sign in through their provider).
public enum PasswordSignIn: Sendable, Equatable {
    case everyone
    case onlyWithoutIdentity
}
