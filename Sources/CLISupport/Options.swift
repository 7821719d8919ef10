import ArgumentParser
import Foundation
import ControlProtocol
import LibrarySQLite

/// Options every library command shares.
public struct LibraryOptions: ParsableArguments {
    public init() {}

    @Option(name: .long, help: ArgumentHelp("Library database (default: $FEEDCTL_DB, else $XDG_DATA_HOME/feedctl/library.sqlite).", valueName: "path"))
    public var db: String?

    /// Opens the library named by `--db`, `FEEDCTL_DB` or the XDG default. Only the commands that
    /// set a library up pass `creating: true` (subscribing, adding a user or a password, serving,
    /// the daemon), and say so in one line through `announce` when they made it: a mistyped path
    /// given to any other command is an error, not a new empty library that makes the real one
    /// look empty. `announce` defaults to a line on stderr, beside the command's own output.
    public func open(creating: Bool = false, announce: (String) -> Void = printError) throws -> SQLiteLibrary {
        let path = db ?? SQLiteLibrary.defaultPath(environment: ProcessInfo.processInfo.environment)
        let existed = FileManager.default.fileExists(atPath: path)
        if !creating, !existed {
            throw CommandError("no library at \(path) (`feedctl channel add URL` or `feedctl channel import FILE` creates it)")
        }
        let library = try SQLiteLibrary(path: path)
        if !existed { announce("created the library at \(path)") }
        return library
    }
}

/// `--json` for listing commands.
public struct OutputOptions: ParsableArguments {
    public init() {}

    @Flag(name: .long, help: "Print JSON (the documented contract) instead of text.")
    public var json = false
}

/// Where the player daemon listens.
public struct SocketOptions: ParsableArguments {
    public init() {}

    @Option(name: .long, help: ArgumentHelp("Control socket (default: $FEEDCTL_SOCKET, else $XDG_RUNTIME_DIR/feedctl/player.sock).", valueName: "path"))
    public var socket: String?

    public var path: String { SocketPath.resolve(socket) }
}
