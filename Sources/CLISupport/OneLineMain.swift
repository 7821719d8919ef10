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

/// ISO 8601 in UTC from gmtime_r, digit by digit: Foundation's formatters (even
/// `Date.ISO8601FormatStyle`) bring up its calendar and time-zone machinery, which loads ICU's
/// data (~0.6 MB resident) for this.
private func utcStamp() -> String {
    var seconds = time(nil)
    var t = tm()
    guard gmtime_r(&seconds, &t) != nil, (0..<10_000).contains(t.tm_year + 1900) else { return "?" }
    return String(unsafeUninitializedCapacity: 20) { text in
        func put(_ value: Int32, at index: Int, digits: Int) {
            var value = value
            for offset in stride(from: digits - 1, through: 0, by: -1) {
                text[index + offset] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            }
        }
        put(t.tm_year + 1900, at: 0, digits: 4); text[4] = UInt8(ascii: "-")
        put(t.tm_mon + 1, at: 5, digits: 2); text[7] = UInt8(ascii: "-")
        put(t.tm_mday, at: 8, digits: 2); text[10] = UInt8(ascii: "T")
        put(t.tm_hour, at: 11, digits: 2); text[13] = UInt8(ascii: ":")
        put(t.tm_min, at: 14, digits: 2); text[16] = UInt8(ascii: ":")
        put(t.tm_sec, at: 17, digits: 2); text[19] = UInt8(ascii: "Z")
        return 20
    }
}
