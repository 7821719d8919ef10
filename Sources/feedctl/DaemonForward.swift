import ArgumentParser
import CLISupport
import ControlSocket
import Foundation

/// `feedctl daemon …` runs `feedctl-daemon …`: the player lives in its own executable so that
/// this one, which every `status`/`pause` starts, links no FFmpeg, PulseAudio or sd-bus.
struct DaemonCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "daemon",
        abstract: "Run the player daemon, feedctl-daemon (foreground; --detach to background it). `feedctl daemon --help` lists its options.")
    @Argument(parsing: .allUnrecognized, help: "Options for the daemon: --detach, --db, --media-dir, --socket, --user, --sync-every, --seek-step, --speed.")
    var options: [String] = []

    init() {}
    init(options: [String]) { self.options = options }

    /// Never returns: the process becomes the daemon, or exits with one line.
    func run() throws {
        try runReporting {
            try become(try Daemonizer.daemonExecutable(), options)
        }
    }
}

/// `feedctl serve …` runs `feedctl-serve …`, installed beside `feedctl`: the HTTP server links
/// Hummingbird and SwiftNIO, which neither the CLI nor the daemon should carry.
struct ServeForward: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the library over HTTP, feedctl-serve (`feedctl serve --help` lists its options).")
    @Argument(parsing: .allUnrecognized, help: "Options for the server: --listen, --open, --db, --media-dir, --socket, --cors, --allow-private-feeds, --allowed-host.")
    var options: [String] = []

    init() {}
    init(options: [String]) { self.options = options }

    /// Never returns: the process becomes the server, or exits with one line.
    func run() throws {
        try runReporting {
            let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
            let server = (me as NSString).deletingLastPathComponent + "/feedctl-serve"
            guard FileManager.default.isExecutableFile(atPath: server) else {
                throw CommandError("the server is not installed: no executable \(server) (swift build builds it; scripts/install.sh installs it)")
            }
            try become(server, options)
        }
    }
}

/// Replaces this process with `executable` run with `options`; returns only by throwing.
private func become(_ executable: String, _ options: [String]) throws {
    var argv: [UnsafeMutablePointer<CChar>?] = ([executable] + options).map { strdup($0) } + [nil]
    execv(executable, &argv)
    throw CommandError("cannot run \(executable): \(String(cString: strerror(errno)))")
}
