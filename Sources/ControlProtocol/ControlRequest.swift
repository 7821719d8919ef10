import FeedModel

/// One request line on the control socket (docs/cli.md, "Control protocol"):
/// `{"id": 1, "cmd": "seek", "offset": -15}`. This is the wire format; `command()` turns it into
/// a `PlayerCommand`, the only place a command is read from strings.
public struct ControlRequest: Codable, Sendable, Equatable {
    public var id: Int?
    public var cmd: String
    /// play, queue_add: an item id, a URL or an absolute path; chapter: next, prev or N.
    public var target: String?
    /// queue_add: several targets, added all or none.
    public var targets: [String]?
    /// queue_add: in front of the queue (to play after the current item).
    public var next: Bool?
    /// queue_move: 1-based positions (queue_remove takes `position`).
    public var from: Int?
    public var to: Int?
    /// play, queue_add: ignore saved progress.
    public var fromStart: Bool?
    /// seek: relative seconds.
    public var offset: Double?
    /// seek: absolute seconds.
    public var position: Double?
    /// seek: seek steps (the daemon's `--seek-step`), negative back.
    public var steps: Int?
    /// volume: a change (−1…1) instead of a `value`.
    public var change: Double?
    /// volume: 0–1; speed: the rate.
    public var value: Double?
    /// sleep: seconds from now.
    public var seconds: Double?
    /// sleep: "end-of-item" or "off".
    public var sleepMode: String?

    enum CodingKeys: String, CodingKey {
        case id, cmd, target, targets, next, from, to, offset, position, steps, change, value, seconds
        case fromStart = "from_start"
        case sleepMode = "mode"
    }

    public init(id: Int? = nil, cmd: String, target: String? = nil, fromStart: Bool? = nil, offset: Double? = nil,
                position: Double? = nil, steps: Int? = nil, change: Double? = nil, value: Double? = nil,
                seconds: Double? = nil, sleepMode: String? = nil) {
        self.steps = steps; self.change = change
        self.id = id; self.cmd = cmd; self.target = target; self.fromStart = fromStart; self.offset = offset
        self.position = position; self.value = value; self.seconds = seconds; self.sleepMode = sleepMode
    }

    /// The request that carries `command`.
    public init(_ command: PlayerCommand, id: Int? = nil) {
        switch command {
        case .status: self.init(id: id, cmd: "status")
        case .play(let target, let fromStart): self.init(id: id, cmd: "play", target: target.description, fromStart: fromStart)
        case .pause: self.init(id: id, cmd: "pause")
        case .resume: self.init(id: id, cmd: "resume")
        case .toggle: self.init(id: id, cmd: "toggle")
        case .stop: self.init(id: id, cmd: "stop")
        case .seek(let target):
            switch target.move {
            case .by(let seconds): self.init(id: id, cmd: "seek", offset: seconds)
            case .to(let seconds): self.init(id: id, cmd: "seek", position: seconds)
            case .steps(let count): self.init(id: id, cmd: "seek", steps: count)
            }
        case .volume(let volume): self.init(id: id, cmd: "volume", value: volume.value)
        case .changeVolume(let change): self.init(id: id, cmd: "volume", change: change.value)
        case .queueAdd(let targets, let next):
            self.init(id: id, cmd: "queue_add")
            self.targets = targets.map(\.description)
            if next { self.next = true }
        case .queueRemove(let position): self.init(id: id, cmd: "queue_remove", position: Double(position))
        case .queueMove(let from, let to):
            self.init(id: id, cmd: "queue_move")
            self.from = from
            self.to = to
        case .queueList: self.init(id: id, cmd: "queue_list")
        case .queueClear: self.init(id: id, cmd: "queue_clear")
        case .next: self.init(id: id, cmd: "next")
        case .sleep(.after(let seconds)): self.init(id: id, cmd: "sleep", seconds: seconds)
        case .sleep(.endOfItem): self.init(id: id, cmd: "sleep", sleepMode: "end-of-item")
        case .sleep(.off): self.init(id: id, cmd: "sleep", sleepMode: "off")
        case .speed(let value): self.init(id: id, cmd: "speed", value: value)
        case .chapters: self.init(id: id, cmd: "chapters")
        case .chapter(.next): self.init(id: id, cmd: "chapter", target: "next")
        case .chapter(.previous): self.init(id: id, cmd: "chapter", target: "prev")
        case .chapter(.number(let n)): self.init(id: id, cmd: "chapter", target: String(n))
        case .subscribe: self.init(id: id, cmd: "subscribe")
        case .ping: self.init(id: id, cmd: "ping")
        case .quit: self.init(id: id, cmd: "quit")
        }
    }

    /// The command this request asks for, or why it asks for none (one line, for the reply).
    public func command() throws(ProtocolError) -> PlayerCommand {
        switch cmd {
        case "status": return .status
        case "play":
            guard let target else { throw ProtocolError("play needs a target: an item id, a URL or a file") }
            return .play(PlayTarget(target), fromStart: fromStart ?? false)
        case "pause": return .pause
        case "resume": return .resume
        case "toggle": return .toggle
        case "stop": return .stop
        case "seek":
            // Numbers from the wire are made valid here, before anything computes with them.
            do throws(PlayerValueError) {
                if let offset { return .seek(try SeekTarget(offset: offset)) }
                if let position { return .seek(try SeekTarget(position: position)) }
                if let steps { return .seek(try SeekTarget(steps: steps)) }
            } catch {
                throw ProtocolError(error.description)
            }
            throw ProtocolError("seek needs an offset, a position or steps")
        case "volume":
            do throws(PlayerValueError) {
                if let change { return .changeVolume(by: try PlayerVolume.Change(change)) }
                guard let value else { throw PlayerValueError("volume needs a value (0–1) or a change (-1–1)") }
                return .volume(try PlayerVolume(value))
            } catch {
                throw ProtocolError(error.description)
            }
        case "queue_add":
            let all = (targets ?? []) + (target.map { [$0] } ?? [])
            guard !all.isEmpty else { throw ProtocolError("queue add needs a target (or targets)") }
            guard all.count <= 10_000 else { throw ProtocolError("queue add takes at most 10000 targets at once") }
            return .queueAdd(all.map(PlayTarget.init), next: next ?? false)
        case "queue_remove":
            guard let position, position.isFinite, position >= 1, position <= 1e9, position.rounded() == position else {
                throw ProtocolError("queue remove needs a position: 1 for the first entry")
            }
            return .queueRemove(Int(position))
        case "queue_move":
            guard let from, let to, from >= 1, to >= 1 else {
                throw ProtocolError("queue move needs from and to positions, from 1")
            }
            return .queueMove(from: from, to: to)
        case "queue_list": return .queueList
        case "queue_clear": return .queueClear
        case "next": return .next
        case "sleep":
            switch sleepMode {
            case "off": return .sleep(.off)
            case "end-of-item": return .sleep(.endOfItem)
            default:
                if let why = PlayerLimits.sleepRefusal(seconds ?? 0) { throw ProtocolError(why) }
                return .sleep(.after(seconds: seconds ?? 0))
            }
        case "speed":
            if let value, !value.isFinite { throw ProtocolError("speed must be a number") }
            return .speed(value)
        case "chapters": return .chapters
        case "chapter":
            switch target?.lowercased() {
            case "next": return .chapter(.next)
            case "prev", "previous": return .chapter(.previous)
            case let text?: if let n = Int(text) { return .chapter(.number(n)) }
            case nil: break
            }
            throw ProtocolError("chapter takes next, prev or a chapter number")
        case "subscribe": return .subscribe
        case "ping": return .ping
        case "quit": return .quit
        default: throw ProtocolError("unknown command \"\(cmd)\"")
        }
    }
}

/// A request the protocol cannot read; `description` is the reply's one-line error (its code:
/// `invalid`).
public struct ProtocolError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }

    public var failure: PlayerFailure { PlayerFailure(.invalid, description) }
}
