/// The reply to one request (docs/cli.md, "Control protocol"): `{"id": 1, "ok": true, "status": {…}}`,
/// or `{"id": 1, "ok": false, "error": "one line"}`. Keys without a value are left out.
public struct PlayerReply: Codable, Sendable, Equatable {
    /// The request's id, echoed.
    public var id: Int?
    public var ok: Bool
    public var error: String?
    /// The player after the command took effect.
    public var status: PlayerStatus?
    /// queue_*: the queue after the command.
    public var queue: [QueueEntry]?
    /// A short confirmation for people ("queued: …", "speed 1.5×").
    public var message: String?
    /// chapters, chapter: the current item's chapters.
    public var chapters: ChaptersPayload?

    public init(id: Int? = nil, ok: Bool = true, error: String? = nil, status: PlayerStatus? = nil,
                queue: [QueueEntry]? = nil, message: String? = nil, chapters: ChaptersPayload? = nil) {
        self.id = id; self.ok = ok; self.error = error; self.status = status; self.queue = queue
        self.message = message; self.chapters = chapters
    }

    /// A refusal, in one line.
    public static func failure(_ error: String, id: Int? = nil, status: PlayerStatus? = nil) -> PlayerReply {
        PlayerReply(id: id, ok: false, error: error, status: status)
    }
}

/// One line of the event stream that `subscribe` starts: what changed, and the status after it.
public struct PlayerEvent: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        case tick, status, metadata, seeked, volume, rate, error, chapter, capabilities
    }

    public var event: Kind
    public var status: PlayerStatus

    public init(event: Kind, status: PlayerStatus) {
        self.event = event; self.status = status
    }
}

/// What serves player commands (the daemon's player service): the control socket and MPRIS
/// only move commands and replies.
public protocol PlayerControl: Sendable {
    /// Carries out `command` and answers once it has taken effect.
    func perform(_ command: PlayerCommand) async -> PlayerReply
    /// A fresh stream of events for one subscriber.
    func events() async -> AsyncStream<PlayerEvent>
}
