import Digests
import FeedModel
import Foundation
import HTTPFetch
import LibraryStore
import OpenIDConnect

/// `[oidc]` as `feedctl serve` runs with it: single sign-on through one OpenID provider, beside
/// passwords (`oidc.*` in the config file, docs/configuration.md).
public struct SingleSignOnSettings: Sendable, Equatable {
    public var client: ClientSettings
    /// On the sign-in button: "Sign in with PROVIDER".
    public var providerName: String
    /// The callback as registered at the provider; nil: this server's scheme and the request's
    /// `Host`, then `/api/auth/oidc/callback`.
    public var redirectURI: String?
    /// A first sign-in of someone no user is linked to makes a user for them.
    public var allowSignup: Bool
    /// A verified email links to the user whose name is that email (feedctl's users have no
    /// email of their own: a name that is an email address stands for it).
    public var linkVerifiedEmail: Bool
    /// Where a phone app may be sent back with its token: exactly these URIs.
    public var mobileRedirectURIs: [String]

    public init(issuer: String, clientID: String, clientSecret: String?, scopes: [String] = ["openid", "email", "profile"],
                providerName: String? = nil, redirectURI: String? = nil, allowSignup: Bool = false,
                linkVerifiedEmail: Bool = false, mobileRedirectURIs: [String] = []) {
        let client = ClientSettings(issuer: issuer, clientID: clientID, clientSecret: clientSecret, scopes: scopes)
        self.client = client
        self.providerName = providerName ?? URL(string: client.issuer)?.host ?? client.issuer
        self.redirectURI = redirectURI; self.allowSignup = allowSignup; self.linkVerifiedEmail = linkVerifiedEmail
        self.mobileRedirectURIs = mobileRedirectURIs
    }

    /// The path of the callback the provider sends the person back to.
    static let callbackPath = "/api/auth/oidc/callback"
}

/// Why a single sign-on did not sign anyone in, each answered with its own status
/// (`SingleSignOnRoutes`), never chosen from the text.
enum SignInRefusal: Error, Sendable, CustomStringConvertible {
    /// No `[oidc]` (or `--open`, which has no logins).
    case notConfigured
    /// A callback whose `state` this server did not hand out, or already used, or too old.
    case unknownState
    /// A web sign-in's callback without the cookie of the browser that started it.
    case otherBrowser
    case missingParameter(String)
    /// A mobile sign-in asked for a redirect URI `oidc.mobile_redirect_uris` does not list.
    case unregisteredRedirect(String)
    /// No `Host` from which to make the callback's URL (and no `oidc.redirect_uri`).
    case noHost
    /// The provider answered the sign-in with an error (`access_denied`…).
    case providerSaid(String)
    /// The provider could not be used, or its answer was refused (`OpenIDError`).
    case openID(OpenIDError)
    /// Nobody is linked to this identity and sign-up is off.
    case noAccount(String)
    /// A re-authentication asked by a user with no identity at this provider.
    case noIdentityHere(String)
    /// A re-authentication's callback without the session that started it.
    case notThisSession
    /// A re-authentication by an identity that is not the signed-in user's.
    case notYourIdentity(String)
    /// A re-authentication whose token says the person signed in before it started (the
    /// provider remembered them instead of asking), or says nothing of when (`auth_time`).
    case staleAuthentication
    case library(LibraryError)
    case api(APIError)

    var description: String {
        switch self {
        case .notConfigured: "single sign-on is not configured on this server (feedctl config set oidc.issuer …, oidc.client_id …)"
        case .unknownState: "this sign-in is unknown, was finished already, or took too long: start again"
        case .otherBrowser: "this sign-in was started in another browser (its cookie is missing): start again here"
        case .missingParameter(let name): "the provider's answer has no \(name)"
        case .unregisteredRedirect(let uri): "\(uri) is not one of this server's mobile redirect URIs (oidc.mobile_redirect_uris)"
        case .noHost: "the request has no Host to send the provider back to: set oidc.redirect_uri"
        case .providerSaid(let what): "the provider refused the sign-in: \(what)"
        case .openID(let error): error.description
        case .noAccount(let provider): "no user of this server is linked to this \(provider) account, and sign-up is off: ask an admin"
        case .noIdentityHere(let provider): "your account is not linked to a \(provider) account: confirm with your password or user name"
        case .notThisSession: "this confirmation was started from another session of this server: start it again from Settings"
        case .notYourIdentity(let provider): "that \(provider) account is not linked to your user: confirm with your own \(provider) account"
        case .staleAuthentication: "the provider did not ask you to sign in again (its token says you signed in earlier): try again"
        case .library(let error): error.descriptionWithoutPaths
        case .api(let error): error.detail
        }
    }
}

/// The server's single sign-on: the provider's client, and who an identity is (found by (issuer, subject); else linked by a verified email, or made, as the
/// settings allow).
struct SingleSignOn: Sendable {
    let settings: SingleSignOnSettings
    let client: OpenIDClient

    init(settings: SingleSignOnSettings, fetcher: Fetcher) {
        self.settings = settings
        client = OpenIDClient(settings: settings.client, fetcher: fetcher)
    }

    /// The user `claims` sign in, made or linked as the settings allow.
    func user(for claims: IDTokenClaims, in store: any UserStore & IdentityStore, now: Int64) async throws(SignInRefusal) -> User {
        let issuer = settings.client.issuer
        do throws(LibraryError) {
            if let user = try await known(claims, in: store, now: now) { return user }
        } catch {
            throw .library(error)
        }
        guard settings.allowSignup else { throw .noAccount(settings.providerName) }
        do throws(LibraryError) {
            return try await store.addUser(names: Self.names(for: claims, issuer: issuer), issuer: issuer, subject: claims.subject,
                                           email: claims.email, now: now)
        } catch .identityTaken {
            // Another callback for the same person made their user meanwhile: that user.
            do throws(LibraryError) {
                if let user = try await store.user(issuer: issuer, subject: claims.subject, now: now) { return user }
            } catch {
                throw .library(error)
            }
            throw .library(.identityTaken(issuer: issuer, subject: claims.subject))
        } catch {
            throw .library(error)
        }
    }

    /// The user linked to the identity, else (`linkVerifiedEmail`) the user named by its
    /// verified email, linked now: the provider vouches that the person holds that address.
    private func known(_ claims: IDTokenClaims, in store: any UserStore & IdentityStore, now: Int64) async throws(LibraryError) -> User? {
        let issuer = settings.client.issuer
        if let user = try await store.user(issuer: issuer, subject: claims.subject, now: now) { return user }
        guard settings.linkVerifiedEmail, claims.emailVerified, let email = claims.email, let name = LibraryUsers.validName(email),
              let user = try await Self.user(named: name, in: store) else { return nil }
        do throws(LibraryError) {
            try await store.link(issuer: issuer, subject: claims.subject, email: email, to: user.id, now: now)
        } catch .identityTaken {
            return try await store.user(issuer: issuer, subject: claims.subject, now: now)
        }
        return user
    }

    private static func user(named name: String, in store: any UserStore) async throws(LibraryError) -> User? {
        do throws(LibraryError) { return try await store.user(named: name) } catch .noUser { return nil }
    }

    /// A new user's name: their `preferred_username` (unless it looks like an email, which the
    /// provider did not verify: it must not squat a name that email linking would later
    /// trust), else their verified email, each with -2 … -9 if taken; last, one made from the
    /// identity that nobody chooses.
    static func names(for claims: IDTokenClaims, issuer: String) -> [String] {
        var bases: [String] = []
        if let preferred = claims.preferredUsername, !preferred.contains("@") { bases.append(preferred) }
        if claims.emailVerified, let email = claims.email { bases.append(email) }
        let valid = bases.compactMap(LibraryUsers.validName)
        let hash = (try? Digest.sha256.hex(issuer + " " + claims.subject)).map { String($0.prefix(12)) } ?? String(claims.subject.prefix(40))
        return valid.flatMap { base in [base] + (2...9).map { "\(base)-\($0)" } } + ["sso-\(hash)"]
    }
}
