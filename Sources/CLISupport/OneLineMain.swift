import ArgumentParser
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
@Sendable public func log(_ message: String) {
    FileHandle.standardError.write(Data("\(utcStamp()) \(message)\n".utf8))
}

/// ISO 8601 in UTC from gmtime_r: Foundation's formatters (even `Date.ISO8601FormatStyle`) bring
/// up its calendar and time-zone machinery, which loads ICU's data (~0.6 MB resident) for this.
private func utcStamp() -> String {
    var seconds = time(nil)
    var t = tm()
    guard gmtime_r(&seconds, &t) != nil else { return "?" }
    func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
    return "\(t.tm_year + 1900)-\(two(t.tm_mon + 1))-\(two(t.tm_mday))T\(two(t.tm_hour)):\(two(t.tm_min)):\(two(t.tm_sec))Z"
}
