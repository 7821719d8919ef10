import FeedModel
import Hummingbird
import LibraryStore
import NIOCore
import ServiceLifecycle

/// `GET /api/events`: the signed-in user's changes as server-sent events, whoever made them
/// (another browser, the CLI, the daemon, a sync), so every client agrees within a second
/// without reloading (`ChangeHub`). Each change is `id: SEQ`, `event: KIND`, `data: JSON`; a
/// stream starts with `id:` alone (where it stands) and says `: keepalive` every 15 s. A
/// reconnect's `Last-Event-ID` gets what it missed, or `event: reset` when that is gone.
struct EventRoutes {
    /// Nil when the server was given no change log (then the route says so: 503).
    let hub: ChangeHub?
    /// The server's connections: a stream ends as soon as its client leaves.
    let connections: ClientConnections?

    func add(to group: RouterGroup<APIRequestContext>) {
        group.get("events") { request, context in
            guard let user = context.user else { throw APIError.unauthorized }
            guard let hub else { throw APIError(.serviceUnavailable, "this server was started without the library's change log: no events") }
            // A HEAD (answered by this route) opens no stream: there is no body to send it in.
            if request.method == .head { return Response(status: .ok, headers: Self.streamHeaders) }
            return try await Self.stream(from: hub, for: user.id, session: user.sessionID, resume: Self.resume(request.headers[.lastEventID]),
                                         connection: context.connection, connections: connections)
        }
    }

    /// Where a stream starts, from its `Last-Event-ID` (a number this server gave; anything
    /// else starts over).
    static func resume(_ header: String?) -> ChangeHub.Resume {
        guard let header else { return .now }
        guard let seq = Int64(header.trimmingCharacters(in: .whitespaces)), seq >= 0 else { return .unknown }
        return .after(seq)
    }

    /// A stream the server cannot serve (past a bound, the library unreadable) is an error
    /// answer, never an empty 200. It ends when its client leaves (its connection closes: the
    /// stream's place is free at once, not at the next write) or the server stops.
    static func stream(from hub: ChangeHub, for user: UserID, session: Int64?, resume: ChangeHub.Resume,
                       connection: (any NIOCore.Channel)?, connections: ClientConnections?) async throws(APIError) -> Response {
        let (id, messages, continuation) = try await hub.open(for: user, session: session, resume: resume)
        if let connection {
            connection.closeFuture.whenComplete { _ in continuation.finish() }
            connections?.whenClientLeaves(connection) { continuation.finish() }
        }
        return Response(status: .ok, headers: streamHeaders, body: ResponseBody { writer in
            do {
                try await withGracefulShutdownHandler {
                    for await message in messages {
                        try await writer.write(ByteBuffer(string: Self.wire(message)))
                    }
                } onGracefulShutdown: {
                    continuation.finish()
                }
                await hub.close(id, of: user)
                try await writer.finish(nil)
            } catch {
                await hub.close(id, of: user)   // the client left
                throw error
            }
        })
    }

    /// A stream's header fields (the player's events too).
    static let streamHeaders: HTTPFields = {
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-cache"
        // nginx would otherwise hold the events back in its buffer.
        headers[.accelBuffering] = "no"
        return headers
    }()

    /// A message as the stream's lines.
    static func wire(_ message: ChangeHub.Message) -> String {
        switch message {
        case .position(let seq): "id: \(seq)\n\n"
        case .change(let change): "id: \(change.seq)\nevent: \(change.kind.rawValue)\ndata: \(change.payload)\n\n"
        case .reset(let latest): "id: \(latest)\nevent: reset\ndata: {}\n\n"
        case .keepalive: ": keepalive\n\n"
        }
    }
}

extension HTTPFields.Element.Name {
    /// What an `EventSource` sends when it reconnects: the last `id:` it was given.
    static let lastEventID = Self("Last-Event-ID")!   // a valid name: cannot fail
    /// nginx's switch for buffering an upstream's answer.
    static let accelBuffering = Self("X-Accel-Buffering")!
}
