import ArgumentParser
import Foundation
import ControlProtocol
import LibraryOpen
import LibraryStore

/// Options every library command shares.
public struct LibraryOptions: ParsableArguments {
    public init() {}

    @Option(name: .long, help: ArgumentHelp("The library: a SQLite file, or a postgresql:// URL (default: $FEEDCTL_DB, else $XDG_DATA_HOME/feedctl/library.sqlite).",
                                            valueName: "path|url"))
    public var db: String?

    /// Where the library is: `--db`, else `FEEDCTL_DB`, else the XDG default; checked.
    public func opener() throws(LibraryOpenError) -> LibraryOpener { try LibraryOpener(db: db) }

    /// Opens the library (`LibraryOpener.open`). Only the commands that set a library up pass
    /// `creating: true` (subscribing, adding a user or a password, serving, the daemon), and say so
    /// in one line through `announce` when they made it. `announce` defaults to a line on stderr,
    /// beside the command's own output.
    public func openDatabase(creating: Bool = false, announce: @Sendable (String) -> Void = printError) async throws(LibraryOpenError)
        -> any LibraryDatabase {
        try await opener().open(creating: creating, announce: announce)
    }

    /// The library owner's store: the CLI acts for the owner.
    public func open(creating: Bool = false, announce: @Sendable (String) -> Void = printError) async throws(LibraryOpenError)
        -> any UserLibrary {
        try await openDatabase(creating: creating, announce: announce).owner
    }
}

/// `--media-dir`, for the commands that read or write downloaded episodes.
public struct MediaOptions: ParsableArguments {
    public init() {}

    @Option(name: .long, help: ArgumentHelp("Downloaded episodes (default: $FEEDCTL_MEDIA, else media/ beside a SQLite library, or $XDG_DATA_HOME/feedctl/media for a PostgreSQL one).",
                                            valueName: "dir"))
    public var mediaDir: String?

    /// The directory, absolute, for the library `library` names (`LibraryOpener.mediaDirectory`).
    public func directory(for library: LibraryOptions) throws(LibraryOpenError) -> String {
        try library.opener().mediaDirectory(option: mediaDir)
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
