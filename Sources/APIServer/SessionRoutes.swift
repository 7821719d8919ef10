import FeedModel
import Hummingbird
import LibraryStore

/// `/api/sessions` (feedctl's own, for the web app's settings): the caller's own live login
/// sessions, and revoking one of them, as `feedctl user sessions NAME` and `user revoke ID` do.
/// Another user's session is "not found", whoever asks.
extension UserRoutes {
    func sessions(_ context: APIRequestContext) async throws -> SessionListResponse {
        let (store, caller) = try store(context)
        let now = clock()
        let sessions = try await FeedRoutes.library { () async throws(LibraryError) in try await store.sessions(of: caller.id) }
        let live = sessions.filter { $0.expiresAt > now }.map { SessionResponse($0, current: $0.id == caller.sessionID) }
        return SessionListResponse(sessions: live, total: live.count)
    }

    /// 204; the session's next request gets 401 and its event streams end (on this server at
    /// once, on another replica at its next keepalive). Revoking the caller's own session logs it out.
    func revokeSession(_ context: APIRequestContext) async throws -> Response {
        let (store, caller) = try store(context)
        let id = try pathID(context)
        let own = try await FeedRoutes.library { () async throws(LibraryError) in try await store.sessions(of: caller.id) }
        guard own.contains(where: { $0.id == id }) else { throw APIError.notFound("no session \(id)") }
        try await FeedRoutes.library { () async throws(LibraryError) in try await store.revokeSession(id: id) }
        await removal.hub?.end(session: id, of: caller.id)
        return Response(status: .noContent)
    }
}

struct SessionResponse: Encodable, Sendable {
    var id: Int64
    @Nullable var device: String?
    var createdAt: String
    var expiresAt: String
    @Nullable var lastUsedAt: String?
    /// Whether it is the session this request came with.
    var current: Bool

    init(_ session: Session, current: Bool) {
        id = session.id; device = session.deviceName; createdAt = WireDate.string(session.createdAt)
        expiresAt = WireDate.string(session.expiresAt); lastUsedAt = session.lastUsedAt.map(WireDate.string); self.current = current
    }

    enum CodingKeys: String, CodingKey {
        case id, device, createdAt = "created_at", expiresAt = "expires_at", lastUsedAt = "last_used_at", current
    }
}

struct SessionListResponse: ResponseEncodable, Sendable {
    var sessions: [SessionResponse]
    var total: Int
}
