import ArgumentParser
import Downloads
import FeedIngest
import FeedModel
import FeedctlControl
import Foundation
import LibraryStore
import PlayerCore

/// `feedctl daemon`: the background player. Listens on the private control socket, plays,
/// saves progress to the library, and keeps subscriptions fresh on a schedule.
@main
struct DaemonCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "feedctl daemon",
        abstract: "Run the player daemon (foreground; --detach to background it).")
    @OptionGroup var library: LibraryOptions
    @OptionGroup var socket: SocketOptions
    @Flag(help: "Start in the background and return once it answers.") var detach = false
    @Option(help: "Minutes between subscription polls (0: never).") var syncEvery: Double = 30
    @Option(help: "Seconds of a seek step.") var seekStep: Double = 15
    @Option(help: "Playback speed for items whose channel has none remembered (0.5–3).") var speed: Double = 1

    func validate() throws {
        guard syncEvery >= 0, syncEvery.isFinite else { throw ValidationError("--sync-every must be 0 or more minutes") }
        guard seekStep > 0, seekStep.isFinite else { throw ValidationError("--seek-step must be positive") }
        guard speed.isFinite, Player.rateRange.contains(speed) else { throw ValidationError("--speed must be between 0.5 and 3") }
    }

    func run() async throws {
        try await runReporting {
            let path = socket.path
            if detach {
                try Daemonizer.startDetached(socketPath: path, database: library.db, extra: passThrough)
                print("feedctl daemon running (socket \(path), log \(Daemonizer.logPath(forSocket: path)))")
                return
            }
            let listener = try UnixListener(path: path)
            let lib = try library.open()
            let quit = DispatchSemaphore(value: 0)
            let service = PlayerService(library: lib, downloads: DownloadStore(libraryPath: lib.path),
                                        configuration: PlayerConfiguration(seekStep: seekStep), defaultRate: speed)
            let server = ControlServer(listener: listener, handler: service, onQuit: { quit.signal() })
            server.start()
            log("feedctl daemon listening on \(path), library \(lib.path)")
            let mpris = MPRISExporter.startIfBusReachable(control: service, player: service.player,
                                                          onQuit: { quit.signal() })
            let signals = Self.onTerminationSignals { quit.signal() }
            let poller = syncEvery > 0 ? Self.startPolling(library: lib, every: syncEvery * 60) : nil

            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                DispatchQueue.global().async { quit.wait(); done.resume() }
            }
            poller?.cancel()
            signals.forEach { $0.cancel() }
            service.player.shutdown()   // saves progress
            await service.flushProgress()
            mpris?.stop()
            server.stop()
            log("feedctl daemon stopped")
        }
    }

    private var passThrough: [String] {
        ["--sync-every", String(syncEvery), "--seek-step", String(seekStep), "--speed", String(speed)]
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

    /// Polls due channels now and then every `interval` seconds; each channel's own next-poll time
    /// and backoff decide whether it is due. The syncer (and with it libcurl, whose global init
    /// loads OpenSSL: ~2 MB resident) is made when a channel is first due, not at start.
    static func startPolling(library: any SyncStore, every interval: Double) -> Task<Void, Never> {
        Task.detached(priority: .background) {
            var syncer: Syncer?
            while !Task.isCancelled {
                if let due = try? await library.dueChannels(now: Clock.now()), !due.isEmpty {
                    let active = syncer ?? Syncer(store: library)
                    syncer = active
                    let report = await active.sync(due)
                    log("sync: \(due.count) channels, \(report.newItems) new items, \(report.errors) errors")
                    for r in report.channels where r.status == .error { log("sync: \(r.error ?? "")") }
                }
                try? await Task.sleep(nanoseconds: UInt64(interval * 1e9))
            }
        }
    }
}

extension DaemonCommand {
    /// Errors as one line on stderr (`feedctl: …`), as the CLI prints them.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand { try await asyncCommand.run() } else { try command.run() }
        } catch {
            let code = exitCode(for: error)
            if code == .success { print(fullMessage(for: error)) }
            else {
                let message = message(for: error)
                if !message.isEmpty { printError(message.replacingOccurrences(of: "Error: ", with: "")) }
            }
            Foundation.exit(code.rawValue)
        }
    }
}
