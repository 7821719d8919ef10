import ArgumentParser
import FeedText
import Foundation

extension ParsableCommand {
    /// ArgumentParser's `main`, except that errors are one line on stderr (`feedctl: …`) without
    /// the usage dump, so scripts and people get the same short message from every executable.
    public static func mainWithOneLineErrors() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand { try await asyncCommand.run() } else { try command.run() }
        } catch {
            exitReporting(error)
        }
    }

    /// Prints `error` as the executables do (help and `--version` whole, anything else as one
    /// line) and exits with its status.
    public static func exitReporting(_ error: any Error) -> Never {
        let code = exitCode(for: error)
        if code == .success {
            print(fullMessage(for: error))
        } else {
            let message = message(for: error)
            if !message.isEmpty { printError(message.replacingOccurrences(of: "Error: ", with: "")) }
        }
        Foundation.exit(code.rawValue)
    }
}

/// A line on stderr (a daemon's or server's log), stamped in UTC: `2026-11-23T20:41:30Z message`.
/// One `write(2)` of bytes made in one go: the server logs every request (bench/serve), and
/// FileHandle with Data and a dozen interpolated parts cost more than the line is worth.
@Sendable public func log(_ message: String) {
    var line = utcStamp()
    line += " "
    line += message
    line += "\n"
    line.withUTF8 { bytes in
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let written = write(2, base + offset, bytes.count - offset)
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }   // stderr closed: nowhere to say it
            offset += written
        }
    }
}

/// The log's stamp (`UTCDate`: digit by digit, without Foundation's formatters and their ICU data).
private func utcStamp() -> String { UTCDate.string(Int64(time(nil))) ?? "?" }
