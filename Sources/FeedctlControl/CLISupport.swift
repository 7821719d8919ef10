import ArgumentParser
import LibrarySQLite
import Foundation

/// Options every library command shares.
package struct LibraryOptions: ParsableArguments {
    package init() {}

    @Option(name: .long, help: ArgumentHelp("Library database (default: $FEEDCTL_DB, else $XDG_DATA_HOME/feedctl/library.sqlite).", valueName: "path"))
    package var db: String?
}

/// `--json` for listing commands.
package struct OutputOptions: ParsableArguments {
    package init() {}

    @Flag(name: .long, help: "Print JSON (the documented contract) instead of text.")
    package var json = false
}

/// Runs a command body, turning any error into one line on stderr and exit status 1:
/// scripts see a non-zero status, people see what went wrong.
package func runReporting(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let exit as ExitCode {
        throw exit
    } catch {
        printError(String(describing: error))
        throw ExitCode(1)
    }
}

/// Async variant of `runReporting`.
package func runReporting(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let exit as ExitCode {
        throw exit
    } catch {
        printError(String(describing: error))
        throw ExitCode(1)
    }
}

package func printError(_ message: String) {
    let line = message.split(whereSeparator: \.isNewline).joined(separator: " ")
    FileHandle.standardError.write(Data("feedctl: \(line)\n".utf8))
}

/// Writes an Encodable as one JSON document on stdout.
package func printJSON<T: Encodable>(_ value: T, pretty: Bool = false) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
    var data = try encoder.encode(value)
    data.append(10)
    FileHandle.standardOutput.write(data)
}

/// Standard output is a terminal (progress bars and colours only then).
package var stdoutIsTTY: Bool { isatty(STDOUT_FILENO) == 1 }
package var stderrIsTTY: Bool { isatty(STDERR_FILENO) == 1 }

/// `1:02:03` or `2:03`.
package func formatClock(_ seconds: Double) -> String {
    let s = max(0, Int(seconds.rounded(.down)))
    let h = s / 3600, m = (s % 3600) / 60, sec = s % 60
    return h > 0 ? String(format: "%d:%02d:%02d", h, m, sec) : String(format: "%d:%02d", m, sec)
}

package extension LibraryOptions {
    /// Opens the library named by `--db`, `FEEDCTL_DB` or the XDG default.
    func open() throws -> SQLiteLibrary {
        if let db { return try SQLiteLibrary(path: db) }
        return try SQLiteLibrary()
    }
}

/// Pads `s` with spaces to `width` characters (on the left with `right`), for aligned columns.
package func pad(_ s: String, _ width: Int, right: Bool = false) -> String {
    let fill = String(repeating: " ", count: max(0, width - s.count))
    return right ? fill + s : s + fill
}

package struct SocketOptions: ParsableArguments {
    package init() {}

    @Option(name: .long, help: ArgumentHelp("Control socket (default: $FEEDCTL_SOCKET, else $XDG_RUNTIME_DIR/feedctl/player.sock).", valueName: "path"))
    package var socket: String?

    package var path: String { SocketPath.resolve(socket) }
}

/// A refusal or failure the daemon reports as one line.
package struct ServiceError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
