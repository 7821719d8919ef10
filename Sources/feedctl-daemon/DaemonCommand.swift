import ArgumentParser
import CLISupport
import ControlSocket
import Downloads
import FeedIngest
import FeedModel
import LibraryStore
import Foundation
import MPRIS
import PlayerCore
import PlayerService
import UserConfig

/// `feedctl daemon`: the background player. Listens on the private control socket, plays,
/// saves progress to the library, and keeps subscriptions fresh on a schedule. This only wires
/// the parts together: the player service, the control server, MPRIS, the sync scheduler.
@main
struct DaemonCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "feedctl daemon",
        abstract: "Run the player daemon (foreground; --detach to background it).",
        version: FeedctlVersion.current)
    @OptionGroup var library: LibraryOptions
    @OptionGroup var media: MediaOptions
    @OptionGroup var socket: SocketOptions
    @Flag(help: "Start in the background and return once it answers.") var detach = false
    @Option(help: "Minutes between subscription polls, 0 to 10080 (0: never; default: the config's sync.every, else 30).")
    var syncEvery: Double?
    @Option(help: "Seconds of a seek step, up to 3600 (default: the config's player.seek_step, else 15).")
    var seekStep: Double?
    @Option(help: "Playback speed for items whose channel has none remembered (\(PlaybackSpeed.text(PlaybackSpeed.range.lowerBound))–\(PlaybackSpeed.text(PlaybackSpeed.range.upperBound)); default: the config's player.speed, else 1).")
    var speed: Double?
    @Option(help: ArgumentHelp("The user it plays for: their queue, progress and history (default: the library's owner).",
                               valueName: "name"))
    var user: String?

    /// The config file's settings, with the options given here over them. The options are
    /// checked by the same rules as the file's keys, and say which option was wrong.
    func settings() throws -> Config {
        var config = try Config.load(path: Config.defaultPath())
        for (option, key, value) in [("--sync-every", "sync.every", syncEvery), ("--seek-step", "player.seek_step", seekStep),
                                     ("--speed", "player.speed", speed)] {
            guard let value else { continue }
            do {
                try Config.setting(named: key).apply(text: String(value), to: &config)
            } catch {
                throw ValidationError(error.description.replacingOccurrences(of: key, with: option))
            }
        }
        return config
    }

    func validate() throws {
        do { _ = try settings() } catch let error as ConfigError { throw CommandError(error.description) }
    }

    func run() async throws {
        try await runReporting {
            let path = socket.path
            if detach {
                try Daemonizer.startDetached(socketPath: path, database: library.db, extra: passThrough)
                print("feedctl daemon running (socket \(path), log \(Daemonizer.logPath(forSocket: path)))")
                return
            }
            let config = try settings()
            let downloads = DownloadStore(directory: try media.directory(for: library))
            let listener = try UnixListener(path: path)
            let database: any LibraryDatabase, lib: any UserLibrary
            do {
                database = try await library.openDatabase(creating: true, announce: log)
                lib = try await Self.store(of: user, in: database)
            } catch {
                listener.close()   // a daemon that could not start leaves no socket behind
                throw error
            }
            let quit = DispatchSemaphore(value: 0)
            // The volume last set, and smart resume as configured (0: off).
            let volume = (try? await lib.savedVolume()) ?? 1
            let rewind = config.smartResumeAfter > 0
                ? ResumeRewind(afterPause: config.smartResumeAfter, seconds: config.smartResumeRewind) : .off
            let service = PlayerService(library: lib, downloads: downloads,
                                        configuration: PlayerConfiguration(seekStep: config.seekStep), defaultRate: config.speed,
                                        initialVolume: volume, resumeRewind: rewind, log: log)
            let server = ControlServer(listener: listener, handler: service, log: log, onQuit: { quit.signal() })
            server.start()
            log("feedctl daemon listening on \(path), library \(database.location)"
                + (user.map { " for user \($0)" } ?? "") + ", downloads in \(downloads.directory)")
            log("settings: " + ["player.seek_step", "player.speed", "sync.every"].compactMap { name in
                (try? Config.setting(named: name)).map { "\(name) = \($0.text(in: config))" }
            }.joined(separator: ", "))
            let player = service.player
            let mpris = MPRISExporter.startIfBusReachable(control: service, nowPlaying: player.nowPlaying,
                                                          position: { player.snapshot.position },
                                                          onQuit: { quit.signal() }, log: log)
            let signals = Self.onTerminationSignals { quit.signal() }
            let poller = Self.startScheduler(config, library: lib, downloads: downloads)

            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                DispatchQueue.global().async { quit.wait(); done.resume() }
            }
            // A sync in flight stores what it finished before the daemon goes (the library is
            // still open until this returns).
            poller?.cancel()
            await poller?.value
            signals.forEach { $0.cancel() }
            service.player.shutdown()   // saves progress
            await service.flushProgress()
            mpris?.stop()
            server.stop()
            log("feedctl daemon stopped")
        }
    }

    /// The store of the user named `name` (nil: the owner's), whom everything it plays is for;
    /// a name the library does not know is one line that says how to find the right one.
    static func store(of name: String?, in database: any LibraryDatabase) async throws -> any UserLibrary {
        guard let name else { return database.owner }
        do throws(LibraryError) {
            return database.store(for: try await database.owner.user(named: name).id)
        } catch .noUser {
            throw CommandError("--user \(name): no such user in the library \(database.location) (`feedctl user list` lists them; `feedctl user add NAME` adds one)")
        }
    }

    /// Polls subscriptions every `sync.every` minutes (none when 0), and after each round keeps
    /// the automatic downloads (`downloads.auto_download`).
    static func startScheduler(_ config: Config, library: any UserLibrary, downloads: DownloadStore) -> Task<Void, Never>? {
        guard config.syncEvery > 0 else { return nil }
        let auto = AutoDownloads(keep: config.autoDownload, deletePlayedAfterDays: config.deletePlayedAfterDays,
                                 catalog: library, store: downloads, log: log)
        let afterEachRound: (@Sendable () async -> Void)?
        if auto.isOn { afterEachRound = { await auto.run() } } else { afterEachRound = nil }
        return SyncScheduler.start(polling: library.polling, follows: library.sharedCollections, every: config.syncEvery * 60, report: log,
                                   afterEachRound: afterEachRound)
    }

    /// The options given, for the detached daemon (it reads the config file itself).
    private var passThrough: [String] {
        [("--sync-every", syncEvery), ("--seek-step", seekStep), ("--speed", speed)]
            .flatMap { option, value in value.map { [option, String($0)] } ?? [] }
            + (media.mediaDir.map { ["--media-dir", $0] } ?? [])
            + (user.map { ["--user", $0] } ?? [])
    }

    /// SIGTERM/SIGINT/SIGHUP end the daemon cleanly (progress saved, socket removed).
    static func onTerminationSignals(_ handler: @escaping @Sendable () -> Void) -> [DispatchSourceSignal] {
        [SIGTERM, SIGINT, SIGHUP].map { sig in
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler(handler: handler)
            source.resume()
            return source
        }
    }
}

extension DaemonCommand {
    /// Errors as one line on stderr (`feedctl: …`), as the CLI prints them.
    static func main() async { await mainWithOneLineErrors() }
}
