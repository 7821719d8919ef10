import AccountExport
import Downloads
import FeedIngest
import FeedModel
import Hummingbird
import LibraryStore

/// `/api/account`: the signed-in user's own account, as privacy rules ask (the right to data
/// portability, then to erasure). `GET export` is everything that is theirs as one JSON
/// document (`AccountExport`, streamed as it is read), `GET export.opml` their subscriptions as
/// OPML (the `/api/subscriptions/opml` export), and `DELETE` removes the account after the
/// person proves again who they are (`Reauthentication`; `GET reauthentication` says how):
/// everything of theirs goes, their sessions and event streams end (`AccountRemoval`).
struct AccountRoutes {
    let authenticator: any Authenticator
    let removal: AccountRemoval
    /// The single sign-on provider's name (nil: single sign-on is off).
    let provider: String?
    let clock: @Sendable () -> Int64
    let log: @Sendable (String) -> Void

    func add(to group: RouterGroup<APIRequestContext>) {
        group.get("account/export") { _, context in try await export(context) }
        group.get("account/export.opml") { _, context in
            try await OPMLRoutes.exportResponse(try context.library(), now: clock())
        }
        group.get("account/reauthentication") { request, context in try await proof(request, context) }
        group.delete("account") { request, context in try await delete(request, context) }
    }

    private var reauthentication: Reauthentication { Reauthentication(logins: authenticator.logins, provider: provider) }

    /// `GET /api/account/reauthentication`: how the caller proves who they are before deleting
    /// their account, and (single sign-on) whether this session has done so recently.
    func proof(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        guard let caller = context.user else { throw APIError.unauthorized }
        guard let users = authenticator.users else { throw APIError.notFound("this server keeps no users") }
        let user = try await FeedRoutes.library { () async throws(LibraryError) in try await users.user(id: caller.id) }
        let proof = try await reauthentication.proof(for: user)
        let fresh = proof == .singleSignOn ? try await reauthentication.isFresh(session: caller.sessionID, now: clock()) : false
        return try ReauthenticationResponse(proof: proof.rawValue, provider: proof == .singleSignOn ? provider : nil, reauthenticated: fresh)
            .response(from: request, context: context)
    }

    func export(_ context: APIRequestContext) async throws -> Response {
        guard let caller = context.user else { throw APIError.unauthorized }
        guard let users = authenticator.users else { throw APIError.notFound("this server keeps no users") }
        // What can fail before the first byte fails as an answer; later, the stream is cut.
        let (profile, sessions, identities) = try await FeedRoutes.library { () async throws(LibraryError) in
            (try await users.user(id: caller.id), try await users.sessions(of: caller.id), try await users.identities(of: caller.id))
        }
        let library = caller.library, now = clock(), log = self.log
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.contentDisposition] = "attachment; filename=\"feedctl-my-data.json\""
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            do {
                try await AccountExport.write(user: profile, sessions: sessions, identities: identities, library: library, now: now) { chunk in
                    try await writer.write(ByteBuffer(string: chunk))
                }
            } catch {
                log("export of \(profile.name)'s data cut short: \((error as? LibraryError)?.descriptionWithoutPaths ?? "\(error)")")
                throw error
            }
            try await writer.finish(nil)
        })
    }

    func delete(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        guard let caller = context.user else { throw APIError.unauthorized }
        guard let users = authenticator.users else { throw APIError.notFound("this server keeps no users") }
        let body = try await RequestBody.decode(DeleteAccountBody.self, request, context: context, emptyAs: DeleteAccountBody())
        let user = try await FeedRoutes.library { () async throws(LibraryError) in try await users.user(id: caller.id) }
        try await reauthentication.check(body, for: user, session: caller.sessionID, address: context.peerAddress ?? "unknown", now: clock())
        try await removal.remove(user, by: nil)
        var response = try SuccessResponse(success: true).response(from: request, context: context)
        response.headers[values: .setCookie].append(SessionCookie.clear(secure: removal.secure))
        return response
    }
}

/// `DELETE /api/account`'s body: the password, or (for a user with neither a password nor a
/// single sign-on identity) the user name typed again. A single sign-on user sends nothing: their
/// proof is the session's recent re-authentication at the provider.
struct DeleteAccountBody: Decodable, Sendable {
    var password: String?
    var username: String?
}

/// `GET /api/account/reauthentication`'s answer.
struct ReauthenticationResponse: ResponseEncodable, Sendable {
    /// `password`, `single_sign_on`, `username` or `none` (`Reauthentication.Proof`).
    var proof: String
    /// The provider to confirm with (single sign-on only).
    @Nullable var provider: String?
    /// Whether this session re-authenticated at the provider recently enough to delete now.
    var reauthenticated: Bool
}

/// Before something that cannot be undone (deleting an account), the person at a session proves
/// again that the account is theirs: a stolen session must not be enough. One rule, by what the
/// user has (`proof(for:)`):
/// - a password: they give it, checked as a login is (`CredentialCheck`: throttled, failures
///   counted against the user), even if they also have an identity;
/// - else a single sign-on identity: a fresh sign-in at the provider from this very session
///   (`POST /api/auth/oidc/reauthenticate`, whose callback checks the ID token as a sign-in
///   does, that its (issuer, subject) is this user's, and that its `auth_time` is after the
///   re-authentication started), recorded in the library for the session, so any replica sees
///   it; it counts `SignInRule.reauthenticationLifetime` after the person signed in there;
/// - else (a user without either, who still has a session: their password cleared, or their
///   identity unlinked, after they signed in) they type their user name.
/// Under `--open` nobody signs in, so there is none to ask (and the one user, the owner, cannot
/// be removed).
struct Reauthentication {
    let logins: TokenAuthenticator?
    /// The single sign-on provider's name (nil: single sign-on is off).
    let provider: String?

    enum Proof: String, Sendable {
        case password
        case singleSignOn = "single_sign_on"
        case username
        /// `--open`: nobody to ask.
        case none
    }

    func proof(for user: User) async throws(APIError) -> Proof {
        guard let logins else { return .none }
        if user.hasPassword { return .password }
        let identities: [UserIdentity]
        do { identities = try await logins.store.identities(of: user.id) } catch { throw APIError(error) }
        return identities.isEmpty ? .username : .singleSignOn
    }

    /// Whether `session` re-authenticated at the provider recently enough at `now`.
    func isFresh(session: Int64?, now: Int64) async throws(APIError) -> Bool {
        guard let logins, let session else { return false }
        do {
            guard let authenticated = try await logins.store.reauthentication(session: session) else { return false }
            return SignInRule.isFreshReauthentication(authenticated, now: now)
        } catch {
            throw APIError(error)
        }
    }

    func check(_ body: DeleteAccountBody, for user: User, session: Int64?, address: String, now: Int64) async throws(APIError) {
        guard let logins else { return }
        switch try await proof(for: user) {
        case .none:
            return
        case .password:
            guard let password = body.password else {
                throw APIError.unprocessable("give your password (password) to delete your account")
            }
            switch try await logins.credentials.check(name: user.name, password: password, address: address, now: now) {
            // The right password proves who they are, whether or not they may sign in with it.
            case .verified, .singleSignOnOnly: return
            case .wrong: throw APIError(.forbidden, "wrong password: nothing was deleted")
            case .throttled(let wait):
                throw APIError.tooManyRequests("too many wrong passwords for this user: try again in \(wait) s", retryAfter: wait)
            }
        case .singleSignOn:
            guard let provider else {
                throw APIError(.forbidden, "your account signs in through single sign-on, which is off on this server: ask an admin to remove it")
            }
            guard try await isFresh(session: session, now: now) else {
                throw APIError(.forbidden, "confirm with \(provider) first (POST /api/auth/oidc/reauthenticate), then delete within "
                               + "\(SignInRule.reauthenticationLifetime / 60) minutes: nothing was deleted")
            }
        case .username:
            guard let typed = body.username else {
                throw APIError.unprocessable("type your user name (username) to confirm you delete your account")
            }
            guard LibraryUsers.validName(typed) == user.name else {
                throw APIError(.forbidden, "that is not your user name: nothing was deleted")
            }
        }
    }
}

/// Removes a user from the library (`UserStore.removeUser`: everything of theirs, in one
/// transaction; never the owner or the last admin, 409) and ends what this server holds open for
/// them: their event streams, at once. Their sessions ended with them (the next request with
/// their token, cookie or gpodder `sessionid` gets 401). The downloaded files of the items that
/// went with them (channels only they followed) are deleted from the server's media directory,
/// as `feedctl user remove` deletes them; files named by the old rule (`<id>-<title>`, which that
/// command adopts first) are left to it.
struct AccountRemoval: Sendable {
    let authenticator: any Authenticator
    let hub: ChangeHub?
    /// The server's media directory; nil: it has none.
    let downloads: DownloadStore?
    /// Served over TLS (the cookie a self-removal clears is `Secure`).
    let secure: Bool
    let log: @Sendable (String) -> Void

    /// Removes `user`; `admin` is who removed them, nil when they removed themselves.
    func remove(_ user: User, by admin: String?) async throws {
        guard let users = authenticator.users else { throw APIError.notFound("this server keeps no users") }
        let removed = try await FeedRoutes.library { () async throws(LibraryError) in try await users.removeUser(named: user.name) }
        await hub?.end(user.id)
        // After the library let go of them, as `channel remove` does; a file that cannot be
        // deleted is logged, and the account is gone all the same.
        let (files, errors) = await TokenAuthenticator.offLoop { [downloads] in downloads?.remove(items: removed.items) ?? ([], []) }
        errors.forEach { log("account removal of \(user.name): \($0.description)") }
        log("account removed: \(user.name) (\(admin.map { "by \($0)" } ?? "by themselves")); "
            + "\(removed.channels) channels only they followed went with \(removed.items.count) items and \(files.count) downloaded files")
    }
}
