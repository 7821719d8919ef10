import ArgumentParser
import ControlProtocol
import LibrarySQLite

/// Options every library command shares.
public struct LibraryOptions: ParsableArguments {
    public init() {}

    @Option(name: .long, help: ArgumentHelp("Library database (default: $FEEDCTL_DB, else $XDG_DATA_HOME/feedctl/library.sqlite).", valueName: "path"))
    public var db: String?

    /// Opens the library named by `--db`, `FEEDCTL_DB` or the XDG default.
    public func open() throws -> SQLiteLibrary {
        if let db { return try SQLiteLibrary(path: db) }
        return try SQLiteLibrary()
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
