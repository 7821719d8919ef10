import ControlProtocol
import CSDBus
import FeedModel
import Foundation
import NowPlaying

/// `/org/mpris/MediaPlayer2`: what its properties read and what its methods do (MPRIS 2.2).
/// Lives on the bus thread: sd-bus calls it from `sd_bus_process` only. Reads come straight from
/// the thread-safe now-playing state and the player's position; commands go to the player
/// service as typed `PlayerCommand`s (the same path as the CLI), and their D-Bus reply is sent
/// once the command has taken effect.
final class MPRISObject {
    static let rootInterface = "org.mpris.MediaPlayer2"
    static let playerInterface = "org.mpris.MediaPlayer2.Player"
    /// The speeds people can choose (MinimumRate/MaximumRate).
    static let rates = PlaybackSpeed.range
    static let mimeTypes = ["audio/mpeg", "audio/mp4", "audio/aac", "audio/x-m4a", "audio/ogg", "audio/opus",
                            "audio/vorbis", "audio/flac", "audio/x-flac", "audio/wav", "audio/x-wav", "audio/webm"]

    /// A command for the control handler, and the call to answer once it has run.
    private struct Job: Sendable {
        var command: PlayerCommand
        var call: PendingCall?
        var failing: Bool
    }

    private let nowPlaying: NowPlayingCenter
    private let position: @Sendable () -> Double
    private var tracks = TrackPaths()
    private let jobs: AsyncStream<Job>.Continuation
    private let worker: Task<Void, Never>

    /// `reply` is called (from any thread) when a command finishes, to answer its method call;
    /// `onQuit` after a successful Quit's reply was handed over, so stopping the exporter still sends it.
    init(control: any PlayerControl, nowPlaying: NowPlayingCenter, position: @escaping @Sendable () -> Double,
         onQuit: @escaping @Sendable () -> Void, reply: @escaping @Sendable (PendingCall, BusError?) -> Void) {
        self.nowPlaying = nowPlaying
        self.position = position
        let (stream, jobs) = AsyncStream.makeStream(of: Job.self)
        self.jobs = jobs
        // One worker, so commands run in the order they arrived (two quick media-key presses).
        worker = Task {
            for await job in stream {
                let response = await control.perform(job.command)
                if let call = job.call {
                    reply(call, job.failing && !response.ok ? .failed(response.error ?? "\(ControlRequest(job.command).cmd) failed") : nil)
                }
                if job.command == .quit && response.ok { onQuit() }
            }
        }
    }

    deinit {
        jobs.finish()
        worker.cancel()
    }

    private var state: NowPlayingState { nowPlaying.state }

    // MARK: Properties

    func property(_ interface: String, _ name: String) -> BusValue? {
        let state = self.state
        switch (interface, name) {
        case (Self.rootInterface, "CanQuit"): return .bool(true)
        case (Self.rootInterface, "CanRaise"): return .bool(false)
        case (Self.rootInterface, "HasTrackList"): return .bool(false)
        case (Self.rootInterface, "Identity"): return .string("feedctl")
        case (Self.rootInterface, "SupportedUriSchemes"): return .strings(["http", "https"])
        case (Self.rootInterface, "SupportedMimeTypes"): return .strings(Self.mimeTypes)
        case (Self.playerInterface, "PlaybackStatus"): return .string(state.status.rawValue)
        case (Self.playerInterface, "Rate"): return .double(state.rate)
        case (Self.playerInterface, "Metadata"): return metadata(state.metadata)
        case (Self.playerInterface, "Volume"): return .double(state.volume)
        case (Self.playerInterface, "Position"): return .int64(Self.micros(position()))
        case (Self.playerInterface, "MinimumRate"): return .double(Self.rates.lowerBound)
        case (Self.playerInterface, "MaximumRate"): return .double(Self.rates.upperBound)
        case (Self.playerInterface, "CanGoNext"): return .bool(state.canGoNext)
        case (Self.playerInterface, "CanGoPrevious"): return .bool(state.canGoPrevious)
        // Play also starts the up-next queue when nothing is loaded.
        case (Self.playerInterface, "CanPlay"): return .bool(state.canPlay || state.canGoNext)
        case (Self.playerInterface, "CanPause"): return .bool(state.canPause)
        case (Self.playerInterface, "CanSeek"): return .bool(state.canSeek)
        case (Self.playerInterface, "CanControl"): return .bool(state.canControl)
        default: return nil
        }
    }

    /// `a{sv}` with the xesam/mpris keys; empty when nothing is loaded.
    private func metadata(_ track: TrackMetadata?) -> BusValue {
        guard let track else { return .dictionary([]) }
        var entries: [(key: String, value: BusValue)] = [("mpris:trackid", .objectPath(tracks.path(for: track)))]
        if let length = track.length, length.isFinite, length > 0 { entries.append(("mpris:length", .int64(Self.micros(length)))) }
        if let title = track.title { entries.append(("xesam:title", .string(title))) }
        if let artist = track.artist { entries.append(("xesam:artist", .strings([artist]))) }
        if let album = track.album { entries.append(("xesam:album", .string(album))) }
        if let art = track.artURL { entries.append(("mpris:artUrl", .string(art))) }
        if let url = track.url { entries.append(("xesam:url", .string(url))) }
        // xesam's "when it was created" (ISO 8601; tags give a date or a year).
        if let date = track.date { entries.append(("xesam:contentCreated", .string(date))) }
        return .dictionary(entries)
    }

    /// Sets a writable property from the variant's contents in `value`.
    func setProperty(_ interface: String, _ name: String, _ value: OpaquePointer) throws(BusError) {
        var number = 0.0
        let r = sd_bus_message_read_basic(value, CChar(UInt8(ascii: "d")), &number)
        guard r > 0, number.isFinite else { throw .invalidArgs("\(name) must be a number") }
        switch name {
        case "Volume":
            // Negative means 0 (spec); above 1 would need amplification, which feedctl does not do.
            send(.volume(PlayerVolume(clamping: number)))
        case "Rate":
            if number == 0 { send(.pause); return } // the spec: act as Pause
            guard Self.rates.contains(number) else {
                throw .invalidArgs("rate \(number) is outside \(Self.rates.lowerBound)–\(Self.rates.upperBound)")
            }
            // Through the daemon, as `feedctl speed`: the channel remembers it too.
            send(.speed(number))
        default:
            throw .invalidArgs("\(name) is read-only")
        }
    }

    // MARK: Methods

    /// Handles a method call: replies now, or returns 1 and replies once the command has run.
    func call(_ message: OpaquePointer) throws(BusError) -> Int32 {
        let member = sd_bus_message_get_member(message).map { String(cString: $0) } ?? ""
        switch member {
        case "Raise", "Previous": return csdbus_reply_empty(message) // CanRaise/CanGoPrevious are false
        case "Quit": return perform(message, .quit)
        case "Next": return perform(message, .next)
        case "Pause": return perform(message, .pause)
        case "PlayPause": return perform(message, .toggle)
        case "Stop": return perform(message, .stop)
        case "Play": return perform(message, .resume)
        case "Seek":
            let offset: Int64 = try read(message, "x")
            guard state.canSeek else { return csdbus_reply_empty(message) }
            // An Int64 of microseconds reaches 9.2e12 s: held to the player's limit, where a seek
            // forward still ends the item (as the spec's "act like Next" wants).
            return perform(message, .seek(SeekTarget(clampingOffset: Double(offset) / 1e6)))
        case "SetPosition":
            let path: String = try read(message, "o")
            let position: Int64 = try read(message, "x")
            // Ignored unless it names the current track and lies inside it (spec).
            let state = self.state
            guard state.canSeek, let track = state.metadata, tracks.path(for: track) == path, position >= 0,
                  let length = track.length, position <= Self.micros(length),
                  let target = try? SeekTarget(position: Double(position) / 1e6)
            else { return csdbus_reply_empty(message) }
            return perform(message, .seek(target))
        case "OpenUri":
            let uri: String = try read(message, "s")
            let scheme = URL(string: uri)?.scheme?.lowercased()
            guard scheme == "http" || scheme == "https" else {
                throw .notSupported("feedctl opens http and https URIs only, not \(uri)")
            }
            return perform(message, .play(.url(uri), fromStart: false), failing: true)
        default:
            throw .unknownMethod(member)
        }
    }

    /// Queues `request` for the control handler and replies when it is done. Most MPRIS methods
    /// "have no effect" when they cannot apply (Next with nothing queued), so only `failing`
    /// requests turn a failure into a D-Bus error.
    private func perform(_ message: OpaquePointer, _ command: PlayerCommand, failing: Bool = false) -> Int32 {
        jobs.yield(Job(command: command, call: PendingCall(message: sd_bus_message_ref(message)), failing: failing))
        return 1
    }

    private func send(_ command: PlayerCommand) {
        jobs.yield(Job(command: command, call: nil, failing: false))
    }

    private func read(_ message: OpaquePointer, _ type: Character) throws(BusError) -> Int64 {
        var value: Int64 = 0
        let r = sd_bus_message_read_basic(message, CChar(type.asciiValue ?? 0), &value)
        guard r > 0 else { throw .invalidArgs("expected an argument of type \(type)") }
        return value
    }

    private func read(_ message: OpaquePointer, _ type: Character) throws(BusError) -> String {
        var value: UnsafePointer<CChar>?
        let r = sd_bus_message_read_basic(message, CChar(type.asciiValue ?? 0), &value)
        guard r > 0, let value else { throw .invalidArgs("expected an argument of type \(type)") }
        return String(cString: value)
    }

    /// Seconds to MPRIS microseconds.
    /// Clamped: a feed may claim any duration, and Int64(_:) traps on overflow.
    static func micros(_ seconds: Double) -> Int64 {
        guard seconds.isFinite else { return 0 }
        return Int64(min(max(0, seconds) * 1_000_000, 9e18).rounded())
    }
}

/// A method call whose reply comes later (the message is referenced until then).
struct PendingCall: @unchecked Sendable {
    let message: OpaquePointer?
}

/// A D-Bus error reply: a standard name and a one-line message.
struct BusError: Error, Sendable {
    let name: String
    let message: String

    static func invalidArgs(_ message: String) -> BusError { BusError(name: "org.freedesktop.DBus.Error.InvalidArgs", message: message) }
    static func notSupported(_ message: String) -> BusError { BusError(name: "org.freedesktop.DBus.Error.NotSupported", message: message) }
    static func failed(_ message: String) -> BusError { BusError(name: "org.freedesktop.DBus.Error.Failed", message: message) }
    static func unknownMethod(_ member: String) -> BusError {
        BusError(name: "org.freedesktop.DBus.Error.UnknownMethod", message: "no method \(member)")
    }

    /// Fills sd-bus's error out-parameter; returns the negative errno sd-bus expects back.
    func set(_ error: UnsafeMutablePointer<sd_bus_error>?) -> Int32 {
        name.withCString { n in message.withCString { m in sd_bus_error_set(error, n, m) } }
    }
}
