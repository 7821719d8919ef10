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
/// person proves again who they are (`Reauthentication`): everything of theirs goes, their
/// sessions and event streams end (`AccountRemoval`).
struct AccountRoutes {
    let authenticator: any Authenticator
    let removal: AccountRemoval
    let clock: @Sendable () -> Int64
    let log: @Sendable (String) -> Void

    func add(to group: RouterGroup<APIRequestContext>) {
        group.get("account/export") { _, context in try await export(context) }
        group.get("account/export.opml") { _, context in
            try await OPMLRoutes.exportResponse(try context.library(), now: clock())
        }
        group.delete("account") { request, context in try await delete(request, context) }
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
        try await Reauthentication(logins: authenticator.logins).check(body, for: user, address: context.peerAddress ?? "unknown", now: clock())
        try await removal.remove(user, by: nil)
        var response = try SuccessResponse(success: true).response(from: request, context: context)
        response.headers[values: .setCookie].append(SessionCookie.clear(secure: removal.secure))
        return response
    }
}

/// `DELETE /api/account`'s body: the password, or (for a user without one) the user name typed again.
struct DeleteAccountBody: Decodable, Sendable {
    var password: String?
    var username: String?
}

/// Before something that cannot be undone (deleting an account), the person at a session proves
/// again that the account is theirs: a stolen session must not be enough. A user with a
/// password gives it, checked as a login is (`CredentialCheck`: throttled, failures counted
/// against the user); a user without one (who cannot sign in with a password: a single sign-on
/// user, once there are such) types their user name. Under `--open` nobody signs in, so there
/// is none to ask (and the one user, the owner, cannot be removed).
///
/// Single sign-on plugs in here: a user known by their identity provider (issue 29's OIDC)
/// proves it by a fresh sign-in there instead (`prompt=login`, an ID token whose `auth_time` is
/// recent and whose subject is theirs), a third field of the body checked by a third case below;
/// until then they type their user name.
struct Reauthentication {
    let logins: TokenAuthenticator?

    func check(_ body: DeleteAccountBody, for user: User, address: String, now: Int64) async throws(APIError) {
        guard let logins else { return }
        if user.hasPassword {
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
        }
        guard let typed = body.username else {
            throw APIError.unprocessable("type your user name (username) to confirm you delete your account")
        }
        guard LibraryUsers.validName(typed) == user.name else {
            throw APIError(.forbidden, "that is not your user name: nothing was deleted")
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
