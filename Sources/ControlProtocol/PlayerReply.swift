/// Why the daemon did not do what it was asked. `kind` is what a client decides by (an HTTP
/// status, whether to try again), never the text; `description` is the one line for a person.
/// On the wire, a reply's `code` and `error`.
public struct PlayerFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Codable, Sendable, CaseIterable {
        /// The request, or one of its values, is not one the player takes.
        case invalid
        /// What it names is not there: a library item, a file, a queue entry, a chapter.
        case notFound = "not_found"
        /// Not in the player's present state: nothing is playing, the queue is empty.
        case notNow = "not_now"
        /// The media could not be opened or played.
        case cannotPlay = "cannot_play"
        /// The daemon cannot serve it now: every client slot is taken, it is shutting down, or
        /// its audio output (PulseAudio) is unreachable. Trying again later may work.
        case unavailable
        /// Anything else (the library failed).
        case failed

        /// A code this client does not know (a newer daemon's) reads as `failed`.
        public init(from decoder: any Decoder) throws {
            self = Kind(rawValue: try decoder.singleValueContainer().decode(String.self)) ?? .failed
        }
    }

    public var kind: Kind
    public var description: String

    public init(_ kind: Kind, _ description: String) {
        self.kind = kind; self.description = description
    }

    /// The refusal every client gets when the daemon serves `limit` clients already.
    public static func tooManyClients(_ limit: Int) -> PlayerFailure {
        PlayerFailure(.unavailable, "the feedctl daemon is busy: too many clients (\(limit) connected); try again when some have finished")
    }
}

/// The reply to one request (docs/cli.md, "Control protocol"): `{"id": 1, "ok": true, "status": {…}}`,
/// or `{"id": 1, "ok": false, "code": "not_found", "error": "one line"}` (`PlayerFailure`). Keys
/// without a value are left out.
public struct PlayerReply: Codable, Sendable, Equatable {
    /// The request's id, echoed.
    public var id: Int?
    public var ok: Bool
    /// Why it failed, for programs (`PlayerFailure.Kind`); `error` says it for people.
    public var code: PlayerFailure.Kind?
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

    /// A refusal.
    public static func failure(_ failure: PlayerFailure, id: Int? = nil, status: PlayerStatus? = nil) -> PlayerReply {
        var reply = PlayerReply(id: id, ok: false, error: failure.description, status: status)
        reply.code = failure.kind
        return reply
    }

    /// Why it failed; nil when it did not. A reply without a code (an older daemon's) is `failed`.
    public var failure: PlayerFailure? {
        ok ? nil : PlayerFailure(code ?? .failed, error ?? "the feedctl daemon refused without saying why")
    }

    /// This reply, if it succeeded.
    public func checked() throws(PlayerFailure) -> PlayerReply {
        if let failure { throw failure }
        return self
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
