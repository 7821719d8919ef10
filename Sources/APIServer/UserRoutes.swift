import Accounts
import FeedModel
import Hummingbird
import LibraryStore

/// `/api/users` (the backend's app/api/users.py, which the web client's settings page and the
/// iOS guide's `getUsers` call), behind the token like every private route. Unlike the backend,
/// which lets anyone list, create and delete users, an admin sees and manages every user and
/// anyone else only themselves: another user's id is "not found" to them, as for items.
struct UserRoutes {
    let authenticator: any Authenticator
    let removal: AccountRemoval
    let clock: @Sendable () -> Int64

    func add(to group: RouterGroup<APIRequestContext>) {
        group.get("users") { _, context in try await list(context) }
        group.post("users") { request, context in try await create(request, context) }
        group.get("users/:id") { _, context in
            let (store, _) = try visible(context)
            let id = UserID(try pathID(context))
            let target = try await FeedRoutes.library { () async throws(LibraryError) in try await store.user(id: id) }
            return try await Self.response(target, store)
        }
        group.delete("users/:id") { _, context in try await remove(context) }
        group.put("users/:id/pin") { request, context in try await setPassword(request, context) }
        group.get("sessions") { _, context in try await sessions(context) }
        group.delete("sessions/:id") { _, context in try await revokeSession(context) }
    }

    /// The user store and the caller; 404 when the server keeps no users.
    func store(_ context: APIRequestContext) throws -> (any UserStore, APIUser) {
        guard let caller = context.user else { throw APIError.unauthorized }
        guard let store = authenticator.users else { throw APIError.notFound("this server keeps no users") }
        return (store, caller)
    }

    /// As `store`, and `{id}` must be the caller or the caller an admin (else "no user").
    private func visible(_ context: APIRequestContext) throws -> (any UserStore, APIUser) {
        let (store, caller) = try store(context)
        let id = try pathID(context)
        guard caller.isAdmin || caller.id.rawValue == id else { throw APIError.notFound("no user \(id)") }
        return (store, caller)
    }

    private static func adminOnly(_ caller: APIUser) throws(APIError) {
        guard caller.isAdmin else { throw APIError(.forbidden, "only an admin may manage users") }
    }

    func list(_ context: APIRequestContext) async throws -> UsersListResponse {
        let (store, caller) = try store(context)
        var users = try await FeedRoutes.library { () async throws(LibraryError) in try await store.users() }
        if !caller.isAdmin { users.removeAll { $0.id != caller.id } }
        let sessions = try await FeedRoutes.library { () async throws(LibraryError) in
            try await store.sessions(of: caller.isAdmin ? nil : caller.id)
        }
        var lastLogin: [UserID: Int64] = [:]
        for session in sessions { lastLogin[session.userID] = max(lastLogin[session.userID] ?? .min, session.createdAt) }
        let responses = users.map { UserResponse($0, lastLogin: lastLogin[$0.id]) }
        return UsersListResponse(users: responses, total: responses.count)
    }

    func create(_ request: Request, _ context: APIRequestContext) async throws -> UserResponse {
        let (store, caller) = try store(context)
        try Self.adminOnly(caller)
        let body = try await RequestBody.decode(CreateUserBody.self, request, context: context)
        var hash: String?
        if let password = body.password ?? body.pin {
            let hashed = await TokenAuthenticator.offLoop { () -> Result<String, Password.Problem> in
                do throws(Password.Problem) { return .success(try Password.hash(password)) } catch { return .failure(error) }
            }
            switch hashed {
            case .success(let value): hash = value
            case .failure(let problem): throw APIError.unprocessable("password: \(problem)")
            }
        }
        let passwordHash = hash
        let user = try await FeedRoutes.library { () async throws(LibraryError) in
            try await store.addUser(name: body.username, isAdmin: body.isAdmin ?? false, passwordHash: passwordHash, now: clock())
        }
        return UserResponse(user, lastLogin: nil)
    }

    /// An admin removes another user (`AccountRemoval`: never the owner or the last admin). Their
    /// own account goes through `DELETE /api/account`, which asks for their password: a stolen
    /// admin session must not be enough to delete it.
    func remove(_ context: APIRequestContext) async throws -> SuccessResponse {
        let (store, caller) = try store(context)
        try Self.adminOnly(caller)
        let id = UserID(try pathID(context))
        let user = try await FeedRoutes.library { () async throws(LibraryError) in try await store.user(id: id) }
        if user.id == caller.id, authenticator.logins != nil {
            throw APIError(.forbidden, "to delete your own account, use DELETE /api/account: it asks for your password")
        }
        try await removal.remove(user, by: caller.name)
        return SuccessResponse(success: true)
    }

    /// Sets or (with `new_pin` null) clears a password: an admin for another user, anyone for
    /// themselves with their current password (an admin too: a stolen admin session must not
    /// be enough to take the account; under `--open` nobody signs in, so there is none to
    /// ask), checked as a login is (`CredentialCheck`:
    /// throttled, failures counted against the user). As `feedctl user passwd` does, the user's
    /// other sessions end; the one making the change stays.
    func setPassword(_ request: Request, _ context: APIRequestContext) async throws -> SetPinResponse {
        let (store, caller) = try visible(context)
        let body = try await RequestBody.decode(SetPinBody.self, request, context: context)
        let id = UserID(try pathID(context))
        let target = try await FeedRoutes.library { () async throws(LibraryError) in try await store.user(id: id) }
        let ownWithLogins = caller.id == target.id && authenticator.logins != nil
        if !caller.isAdmin || ownWithLogins, target.hasPassword {
            guard let credentials = authenticator.logins?.credentials else { throw APIError.notFound("this server keeps no users") }
            switch try await credentials.check(name: target.name, password: body.currentPin ?? "",
                                               address: context.peerAddress ?? "unknown", now: clock()) {
            // Proving who they are, not signing in: a user who signs in through single sign-on only still may.
            case .verified, .singleSignOnOnly: break
            case .wrong: throw APIError.badRequest("Failed to update PIN. Check current PIN is correct.")
            case .throttled(let wait):
                throw APIError.tooManyRequests("too many wrong PINs for this user: try again in \(wait) s", retryAfter: wait)
            }
        }
        var hash: String?
        if let password = body.newPin {
            let hashed = await TokenAuthenticator.offLoop { () -> Result<String, Password.Problem> in
                do throws(Password.Problem) { return .success(try Password.hash(password)) } catch { return .failure(error) }
            }
            switch hashed {
            case .success(let value): hash = value
            case .failure(let problem): throw APIError.unprocessable("new_pin: \(problem)")
            }
        }
        let newHash = hash
        let kept = caller.id == target.id ? caller.sessionID : nil
        try await FeedRoutes.library { () async throws(LibraryError) in
            try await store.setPasswordHash(newHash, for: target.name)
            try await store.revokeSessions(of: target.id, except: kept)
        }
        return SetPinResponse(success: true, hasPin: newHash != nil)
    }

    static func response(_ user: User, _ store: any UserStore) async throws -> UserResponse {
        let sessions = try await FeedRoutes.library { () async throws(LibraryError) in try await store.sessions(of: user.id) }
        return UserResponse(user, lastLogin: sessions.map(\.createdAt).max())
    }
}
