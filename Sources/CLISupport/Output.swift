import ArgumentParser
import Foundation

/// Runs a command body, turning any error into one line on stderr and exit status 1:
/// scripts see a non-zero status, people see what went wrong.
public func runReporting(_ body: () throws -> Void) throws {
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
public func runReporting(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let exit as ExitCode {
        throw exit
    } catch {
        printError(String(describing: error))
        throw ExitCode(1)
    }
}

/// `feedctl: <message>` on stderr, as one line.
public func printError(_ message: String) {
    let line = message.split(whereSeparator: \.isNewline).joined(separator: " ")
    FileHandle.standardError.write(Data("feedctl: \(line)\n".utf8))
}

/// Writes an Encodable as one JSON document on stdout: the contracts' encoding (sorted keys,
/// slashes as they are).
public func printJSON<T: Encodable>(_ value: T) throws {
    var data = try JSONEncoder.contract.encode(value)
    data.append(10)
    FileHandle.standardOutput.write(data)
}

extension JSONEncoder {
    /// How every documented JSON contract is written.
    public static var contract: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}

/// Standard output or error is a terminal (progress bars only then).
public var stdoutIsTTY: Bool { isatty(STDOUT_FILENO) == 1 }
public var stderrIsTTY: Bool { isatty(STDERR_FILENO) == 1 }

/// A refusal the CLI reports as one line.
public struct CommandError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
