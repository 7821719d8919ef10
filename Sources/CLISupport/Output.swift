import ArgumentParser
import Foundation

/// Runs a command body, turning any error into one line on stderr and a non-zero exit status:
/// scripts see the status, people see what went wrong. The statuses (docs/cli.md, "Exit status"):
/// 1 the command failed, 2 it partly failed (`PartialFailure`), 128 + N a signal N interrupted
/// it (`Interrupted`), 64 a usage error (ArgumentParser's).
public func runReporting(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch {
        throw reported(error)
    }
}

/// Async variant of `runReporting`.
public func runReporting(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch {
        throw reported(error)
    }
}

/// Prints `error` as one line and returns the exit status it stands for.
private func reported(_ error: any Error) -> ExitCode {
    if let exit = error as? ExitCode { return exit }
    printError(String(describing: error))
    switch error {
    case is PartialFailure: return ExitCode(2)
    case let interrupted as Interrupted: return ExitCode(interrupted.exitCode)
    case let cut as CommandInterrupted: return ExitCode(cut.interrupted.exitCode)
    default: return ExitCode(1)
    }
}

/// Some of what a command was asked to do failed, the rest was done (a sync with failing
/// feeds, an import with a dead feed): exit status 2. Each failure was reported above it.
public struct PartialFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// `feedctl: <message>` on stderr, as one line.
public func printError(_ message: String) {
    // Messages can carry what a server or feed said: no control characters reach the terminal.
    let line = Terminal.printable(message.split(whereSeparator: \.isNewline).joined(separator: " "))
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
