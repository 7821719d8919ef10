import ArgumentParser
import CLISupport
import ControlProtocol
import ControlSocket
import FeedModel
import Foundation
import LibraryStore

// Player verbs at the top level, as mpc has them. Each sends one request to the daemon over the
// control socket; `play`, `queue add`, `resume`, `toggle` and `next` start the daemon if needed.

/// Shared plumbing of the player commands.
struct PlayerClientOptions: ParsableArguments {
    @OptionGroup var library: LibraryOptions
    /// For the daemon a command starts (it plays downloaded episodes from there).
    @OptionGroup var media: MediaOptions
    @OptionGroup var socket: SocketOptions
    @Flag(name: .long, help: "Print the resulting status as JSON.") var json = false

    func send(_ command: PlayerCommand, autostart: Bool) throws -> PlayerReply {
        let client = try ControlClient.connect(socketPath: socket.path, database: library.db, mediaDirectory: media.mediaDir,
                                           autostart: autostart)
        defer { client.connection.close() }
        return try client.perform(command)
    }

    /// The daemon's reply to `command`, or nil when none runs: the queue commands then read and
    /// change the queue where it is kept, in the library (through the daemon when it runs, so
    /// that it sees the change).
    func sendIfRunning(_ command: PlayerCommand) throws -> PlayerReply? {
        do {
            return try send(command, autostart: false)
        } catch is DaemonNotRunning {
            return nil
        }
    }

    /// Sends `command` and prints the status it left behind.
    func run(_ command: PlayerCommand, autostart: Bool = false) throws {
        try runReporting {
            let response = try send(command, autostart: autostart)
            // Messages name feed titles: no control characters reach the terminal.
            if let message = response.message, !json { print(Terminal.printable(message)) }
            if let status = response.status { try StatusPrinter.print(status, json: json) }
        }
    }
}

struct PlayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Play a library item (id), a media URL or a file, resuming where you left off; with no target, continue the last one.")
    @OptionGroup var options: PlayerClientOptions
    @Flag(help: "Start at the beginning, ignoring saved progress.") var fromStart = false
    @Flag(help: "Play the first item of catch-up order (what you left unfinished, then what you missed).") var next = false
    @Option(help: "With --next: only this channel.", completion: .channelIDs) var channel: Int64?
    @Argument(help: "Library item id, http(s) URL, or file path.", completion: .file()) var target: String?

    func validate() throws {
        if next && target != nil { throw ValidationError("play takes a target or --next, not both") }
        if channel != nil && !next { throw ValidationError("--channel goes with --next") }
    }

    func run() async throws {
        if next {
            var chosen: Int64?
            try await runReporting {
                let filter = FeedFilter(channelID: channel, unwatchedOnly: true)
                let lib = try await options.library.open()
                if let channel { _ = try await lib.channel(id: channel) }   // "no channel N" rather than nothing
                guard let first = try await lib.feed(FeedQuery(mode: .catchUp, filter: filter, page: .first(1)), now: Clock.now()).first else {
                    throw CommandError("nothing to catch up on" + (channel.map { " in channel \($0)" } ?? ""))
                }
                chosen = first.id
            }
            if let chosen { try options.run(.play(.item(chosen), fromStart: fromStart), autostart: true) }
        } else if let target {
            try options.run(.play(PlayTarget(commandLine: target), fromStart: fromStart), autostart: true)
        } else {
            // What played last, where it was left (after a stop or a restart too); else the queue.
            try options.run(.resume, autostart: true)
        }
    }
}

extension PlayTarget {
    /// What the user typed: item ids and URLs pass through; a path becomes absolute (the daemon
    /// has its own working directory).
    init(commandLine text: String) {
        if Int64(text) != nil || text.contains("://") {
            self.init(text)
            return
        }
        let path = text.hasPrefix("/") ? text : FileManager.default.currentDirectoryPath + "/" + text
        self = .local((path as NSString).standardizingPath)
    }
}

struct PauseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "pause", abstract: "Pause playback.")
    @OptionGroup var options: PlayerClientOptions
    func run() throws { try options.run(.pause) }
}

struct ResumeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "resume", abstract: "Resume playback (or start the queue).")
    @OptionGroup var options: PlayerClientOptions
    func run() throws { try options.run(.resume, autostart: true) }
}

struct ToggleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "toggle", abstract: "Pause if playing, else resume.")
    @OptionGroup var options: PlayerClientOptions
    func run() throws { try options.run(.toggle, autostart: true) }
}

struct StopCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "stop", abstract: "Stop playback (progress is saved).")
    @OptionGroup var options: PlayerClientOptions
    func run() throws { try options.run(.stop) }
}

struct NextCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "next", abstract: "Play the next queued item.")
    @OptionGroup var options: PlayerClientOptions
    func run() throws { try options.run(.next, autostart: true) }
}

struct QuitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "quit", abstract: "Stop the daemon (progress is saved).")
    @OptionGroup var options: PlayerClientOptions
    func run() throws {
        try runReporting {
            _ = try options.send(.quit, autostart: false)
            print("feedctl daemon stopped")
        }
    }
}

/// The words a player verb was given for its value. Values may start with "-" (`seek -15`,
/// `volume -5`), which ArgumentParser reads as options ("Missing expected argument '<level>'",
/// "Unknown option '-1'"), so these verbs take their words unparsed (`.allUnrecognized`) and read
/// them here: a leading `--` ends the options as usual (`seek -- -15`), and anything but one value
/// is the verb's one-line usage.
enum VerbValue {
    /// The one value in `words`, or nil when there is none.
    static func optional(_ words: [String], usage: String) throws -> String? {
        var rest = words
        if rest.first == "--" { rest.removeFirst() }
        guard rest.count <= 1 else { throw ValidationError(usage) }
        return rest.first
    }

    /// The one value in `words`.
    static func required(_ words: [String], usage: String) throws -> String {
        guard let value = try optional(words, usage: usage) else { throw ValidationError(usage) }
        return value
    }
}

struct SeekCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seek",
        abstract: "Seek: +15 / -15 relative, an absolute position (SECONDS, MM:SS, H:MM:SS), or forward / back by the daemon's --seek-step.")
    @OptionGroup var options: PlayerClientOptions
    @Argument(parsing: .allUnrecognized, help: "+SECONDS, -SECONDS, SECONDS, MM:SS, H:MM:SS, forward (+) or back (-)")
    var position: [String] = []

    static let usage = "seek takes one position: +15, -15, 90, 1:30, 1:02:03, forward or back"

    func run() throws {
        try runReporting {
            let text = try VerbValue.required(position, usage: Self.usage)
            try options.run(.seek(try Self.target(text)))
        }
    }

    /// The seek `text` asks for, made valid here (`SeekTarget`), or why it cannot be.
    static func target(_ text: String) throws -> SeekTarget {
        do throws(PlayerValueError) {
            switch text.lowercased() {
            case "forward", "fwd", "+": return try SeekTarget(steps: 1)
            case "back", "backward", "-": return try SeekTarget(steps: -1)
            default: break
            }
            if let sign = text.first, sign == "+" || sign == "-" {
                guard let magnitude = DurationArgument.unbounded(String(text.dropFirst())) else { throw notAPosition(text) }
                return try SeekTarget(offset: sign == "-" ? -magnitude : magnitude)
            }
            guard let seconds = DurationArgument.unbounded(text) else { throw notAPosition(text) }
            return try SeekTarget(position: seconds)
        } catch {
            throw ValidationError(error.description)
        }
    }

    private static func notAPosition(_ text: String) -> PlayerValueError {
        PlayerValueError("\(usage) (not \"\(text)\")")
    }
}

struct VolumeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "volume",
        abstract: "The volume in percent: 0–100 (50, 50%) sets it, +5 / -10 changes it (clamped to 0–100); no LEVEL prints it.")
    @OptionGroup var options: PlayerClientOptions
    @Argument(parsing: .allUnrecognized, help: "0–100, 50%, +5 or -10") var level: [String] = []

    static let usage = "volume takes one level: 0–100 (50 or 50%), +5 or -10"

    func run() throws {
        try runReporting {
            guard let text = try VerbValue.optional(level, usage: Self.usage) else {
                let status = try options.send(.status, autostart: false).status ?? PlayerStatus()
                if options.json { return try StatusPrinter.print(status, json: true) }
                print("volume \(Self.percent(status.volume))%")
                return
            }
            let command = try Self.command(text)
            let response = try options.send(command, autostart: false)
            if options.json, let status = response.status { return try StatusPrinter.print(status, json: true) }
            print("volume \(Self.percent(response.status?.volume ?? 0))%")
        }
    }

    /// `50`/`50%` sets, `+5`/`-10` changes (in percent points).
    static func command(_ text: String) throws -> PlayerCommand {
        var number = Substring(text.trimmingCharacters(in: .whitespaces))
        if number.hasSuffix("%") { number = number.dropLast() }
        let sign = number.first.flatMap { $0 == "+" || $0 == "-" ? $0 : nil }
        if sign != nil { number = number.dropFirst() }
        guard !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
              let percent = Double(number), percent.isFinite else {
            throw ValidationError("not a volume: \(text) (\(usage))")
        }
        // The range is `PlayerVolume`'s; only the unit (percent) is the command line's.
        do throws(PlayerValueError) {
            switch sign {
            case "+": return .changeVolume(by: try PlayerVolume.Change(percent / 100))
            case "-": return .changeVolume(by: try PlayerVolume.Change(-percent / 100))
            default: return .volume(try PlayerVolume(percent / 100))
            }
        } catch {
            throw ValidationError("volume is 0–100 (percent): \(text)")
        }
    }

    static func percent(_ volume: Double) -> Int { Int((volume * 100).rounded()) }
}

struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "What is playing: title, channel, position, state.")
    @OptionGroup var library: LibraryOptions
    @OptionGroup var socket: SocketOptions
    @Flag(help: "Print the status as JSON (the documented contract).") var json = false
    @Flag(help: "Keep printing: a line whenever what it shows changes (the position at most once a second), until interrupted.")
    var follow = false

    func run() throws {
        try runReporting {
            // No daemon is an error, as for every other verb, with or without --follow (it used
            // to print "[stopped]" and exit 0, which a dead daemon is not).
            let client = try ControlClient.connect(socketPath: socket.path, database: library.db, autostart: false)
            defer { client.connection.close() }
            let first = try client.perform(follow ? .subscribe : .status)
            guard follow else {
                if let status = first.status { try StatusPrinter.print(status, json: json) }
                return
            }
            var filter = FollowFilter()
            func show(_ status: PlayerStatus, _ kind: PlayerEvent.Kind?) throws {
                let line = try StatusPrinter.followLine(status, json: json)
                if filter.admit(line, kind: kind, now: Self.now()) { StatusPrinter.emit(line) }
            }
            if let status = first.status { try show(status, nil) }
            while let event = try client.nextEvent() { try show(event.status, event.event) }
            throw CommandError("the feedctl daemon went away")
        }
    }
}

extension StatusCommand {
    /// Monotonic seconds.
    static func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
}

/// Which of `status --follow`'s lines are printed: only one that differs from the line before
/// (a volume change of a sleep timer's fade, four a second, leaves the text line as it was; two
/// events about one change print once), and of the events that come at a rate — ticks, and
/// volume changes (the fade) — at most one line a second, so a JSON follower is not flooded
/// either. A seek, a pause, a new item or an error print at once; what a dropped tick or volume
/// event carried shows in the next line.
struct FollowFilter {
    /// Ticks come once a second; a little less leaves room for their jitter.
    static let minimumInterval = 0.75
    private var lastLine: String?
    private var lastPrinted = -Double.infinity

    /// Whether to print `line`, which came with an event of `kind` (nil: the first status), at `now` (seconds).
    mutating func admit(_ line: String, kind: PlayerEvent.Kind?, now: Double) -> Bool {
        guard line != lastLine else { return false }
        if kind == .tick || kind == .volume, now - lastPrinted < Self.minimumInterval { return false }
        lastLine = line
        lastPrinted = now
        return true
    }
}

struct QueueCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queue", abstract: "The up-next queue, kept in the library (advances when an item ends; survives restarts).",
        subcommands: [Add.self, Next.self, List.self, Remove.self, Move.self, Clear.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Queue items, URLs or files (or a collection's items): all or none, each checked first.")
        @OptionGroup var options: PlayerClientOptions
        @Option(help: "Queue this collection's items, in its order.") var collection: String?
        @Flag(help: "Put them in front: they play after the current item.") var next = false
        @Argument(help: "Library item ids, URLs or files.", completion: .file()) var targets: [String] = []

        func validate() throws {
            if targets.isEmpty && collection == nil { throw ValidationError("queue add needs targets or --collection NAME") }
        }

        func run() async throws {
            var all = targets.map(PlayTarget.init(commandLine:))
            if let collection {
                try await runReporting {
                    let items = try await options.library.open().collection(collection)
                    guard !items.isEmpty else { throw CommandError("the collection \"\(collection)\" is empty") }
                    all += items.map { .item($0.id) }
                }
            }
            try QueueCommand.add(all, next: next, options: options)
        }
    }

    struct Next: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Queue items, URLs or files to play after the current one.")
        @OptionGroup var options: PlayerClientOptions
        @Argument(help: "Library item ids, URLs or files.", completion: .file()) var targets: [String]
        func run() throws { try QueueCommand.add(targets.map(PlayTarget.init(commandLine:)), next: true, options: options) }
    }

    static func add(_ targets: [PlayTarget], next: Bool, options: PlayerClientOptions) throws {
        try runReporting {
            let response = try options.send(.queueAdd(targets, next: next), autostart: true)
            if options.json { return try printJSON(response.queue ?? []) }
            print(Terminal.printable(response.message ?? "queued"))
        }
    }

    /// The queue as the library keeps it, for the commands that work without the daemon.
    static func stored(_ options: PlayerClientOptions) async throws -> [QueueEntry] {
        try await options.library.open().upNext().map { QueueEntry(target: $0.target.text, title: $0.title, itemID: $0.target.itemID) }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the queue (the daemon need not run).")
        @OptionGroup var options: PlayerClientOptions
        func run() async throws {
            try await runReporting {
                let queue: [QueueEntry]
                if let reply = try options.sendIfRunning(.queueList) {
                    queue = reply.queue ?? []
                } else {
                    queue = try await QueueCommand.stored(options)
                }
                if options.json { return try printJSON(queue) }
                if queue.isEmpty { print("the queue is empty"); return }
                let width = Terminal.width
                for (i, entry) in queue.enumerated() {
                    print(Terminal.fit("\(i + 1). \(Terminal.printable(entry.title ?? entry.target))", width: width))
                }
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove the entry at a position (1 is the next to play; the daemon need not run).")
        @OptionGroup var options: PlayerClientOptions
        @Argument(help: "Its position in `queue list`.") var position: Int
        func validate() throws { if position < 1 { throw ValidationError("positions start at 1") } }
        func run() async throws {
            try await runReporting {
                let message: String
                if let reply = try options.sendIfRunning(.queueRemove(position)) {
                    message = reply.message ?? "removed \(position)"
                } else {
                    message = "removed \(position): \(try await options.library.open().removeFromUpNext(at: position).title)"
                }
                print(Terminal.printable(message))
            }
        }
    }

    struct Move: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Move an entry to another position (the others close up; the daemon need not run).")
        @OptionGroup var options: PlayerClientOptions
        @Argument(help: "Its position now.") var from: Int
        @Argument(help: "Its new position.") var to: Int
        func validate() throws { if from < 1 || to < 1 { throw ValidationError("positions start at 1") } }
        func run() async throws {
            try await runReporting {
                let queue: [QueueEntry]
                if let reply = try options.sendIfRunning(.queueMove(from: from, to: to)) {
                    queue = reply.queue ?? []
                } else {
                    try await options.library.open().moveInUpNext(from: from, to: to)
                    queue = try await QueueCommand.stored(options)
                }
                if options.json { return try printJSON(queue) }
                let moved = queue.indices.contains(to - 1) ? queue[to - 1].title ?? queue[to - 1].target : "entry"
                print("moved \(Terminal.printable(moved)) to \(to)")
            }
        }
    }

    struct Clear: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Empty the queue (the daemon need not run).")
        @OptionGroup var options: PlayerClientOptions
        func run() async throws {
            try await runReporting {
                if try options.sendIfRunning(.queueClear) == nil { try await options.library.open().clearUpNext() }
                print("queue cleared")
            }
        }
    }
}

/// Renders a status for people or as the JSON contract.
enum StatusPrinter {
    /// One line of `status --follow`: the compact line, or the JSON contract.
    static func followLine(_ s: PlayerStatus, json: Bool) throws -> String {
        if json { return String(decoding: try JSONEncoder.contract.encode(s), as: UTF8.self) }
        let time = Formats.clock(s.position) + (s.duration.map { " / " + Formats.clock($0) } ?? "")
        let what = Terminal.printable([s.title, s.artist].compactMap { $0 }.joined(separator: " — "))
        let error = s.error.map { "  error: \(Terminal.printable($0))" } ?? ""
        return "[\(s.status.rawValue)] \(time)  \(what)\(error)"
    }

    static func emit(_ line: String) {
        Swift.print(line)
        fflush(nil)
    }

    static func print(_ s: PlayerStatus, json: Bool) throws {
        if json { return try printJSON(s) }
        let time = Formats.clock(s.position) + (s.duration.map { " / " + Formats.clock($0) } ?? "")
        let percent = s.duration.flatMap { $0 > 0 ? " (\(Int(100 * s.position / $0))%)" : nil } ?? ""
        // Titles come from feeds and media tags: no control characters reach the terminal.
        let what = Terminal.printable([s.title, s.artist].compactMap { $0 }.joined(separator: " — "))
        let error = s.error.map { "  error: \(Terminal.printable($0))" } ?? ""
        if s.status == .stopped && s.title == nil {
            Swift.print("[stopped]\(error)")
        } else {
            Swift.print("[\(s.status.rawValue)] \(what)")
            Swift.print("  \(time)\(percent)  volume \(Int((s.volume * 100).rounded()))%" + (s.rate != 1 ? "  speed \(s.rate)×" : "")
                        + (s.chapter.map { "  chapter: \(Terminal.printable($0))" } ?? "")
                        + (s.sleepAt.map { "  sleep at \(sleepTime($0))" } ?? "") + error)
        }
        fflush(nil)   // all streams: `stdout` itself is shared mutable state to Swift 6
    }

    /// When the sleep timer stops playback, local time: `23:30:00` today, with the date on any
    /// other day (`2026-11-25 01:30:00`: `sleep 25h` is not "at 01:30" today).
    static func sleepTime(_ epoch: Int64, now: Int64 = Int64(time(nil))) -> String {
        let clock = Formats.timeOfDay(epoch)
        return Formats.day(epoch) == Formats.day(now) ? clock : Formats.day(epoch) + " " + clock
    }
}
