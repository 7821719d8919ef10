import Foundation

/// Runs external tools (ffmpeg, sox, pactl, parec, python3, the built feedctl) for the tests,
/// always with a time limit: a hung child is killed and reported, never waited on forever.
public enum ProcessRunner {
    /// A test fixture that could not be set up, in one line.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    /// What a finished process left behind.
    public struct Result {
        public var status: Int32
        public var stdout: String
        public var stderr: String

        public init(status: Int32, stdout: String, stderr: String) {
            self.status = status
            self.stdout = stdout
            self.stderr = stderr
        }
    }

    /// Runs `executable` (a path, or a tool name looked up on PATH) and returns what it left
    /// behind, whatever its exit status. Output goes through temp files, so a chatty child can't
    /// block on a full pipe, and a daemon it forks can't hold a pipe open.
    public static func capture(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                               timeout: Double = 60) throws -> Result {
        try start(executable, arguments, environment: environment).wait(timeout: timeout)
    }

    /// Starts `executable` and returns at once: for tests that signal a process while it runs.
    public static func start(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws -> Running {
        try Running(executable, arguments, environment: environment)
    }

    /// A started process, its output going to temp files.
    public final class Running {
        public let process = Process()
        private let done = DispatchSemaphore(value: 0)
        private let outURL: URL, errURL: URL
        private let name: String

        init(_ executable: String, _ arguments: [String], environment: [String: String]?) throws {
            name = "\(executable) \(arguments.joined(separator: " "))"
            if executable.hasPrefix("/") {
                process.executableURL = URL(fileURLWithPath: executable)
                process.arguments = arguments
            } else {
                process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
                process.arguments = [executable] + arguments
            }
            if let environment { process.environment = environment }
            let tmp = FileManager.default.temporaryDirectory
            outURL = tmp.appendingPathComponent("feedctl-out-\(UUID().uuidString)")
            errURL = tmp.appendingPathComponent("feedctl-err-\(UUID().uuidString)")
            _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
            _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
            let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)
            process.standardOutput = out
            process.standardError = err
            process.standardInput = FileHandle.nullDevice
            let done = self.done
            process.terminationHandler = { _ in done.signal() }
            try process.run()
            try? out.close(); try? err.close()
        }

        deinit {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
        }

        /// Sends `signal` (e.g. SIGINT, as Ctrl-C does).
        public func signal(_ signal: Int32) { kill(process.processIdentifier, signal) }

        /// What it has written to stderr so far.
        public var stderrSoFar: String { String(decoding: (try? Data(contentsOf: errURL)) ?? Data(), as: UTF8.self) }

        /// Waits for the exit; a process still running after `timeout` is killed and reported.
        /// A process killed by a signal has status 128 + the signal, as a shell reports it.
        public func wait(timeout: Double) throws -> Result {
            if done.wait(timeout: .now() + timeout) == .timedOut {
                process.terminate()
                if done.wait(timeout: .now() + 2) == .timedOut {
                    kill(process.processIdentifier, SIGKILL)
                    _ = done.wait(timeout: .now() + 5)   // not forever: a leaked descriptor can hide the exit
                }
                throw Failure(description: "\(name) did not finish within \(Int(timeout)) s")
            }
            // Decoded leniently: a stray invalid byte must show in a failure message, not empty it.
            func text(_ url: URL) -> String { String(decoding: (try? Data(contentsOf: url)) ?? Data(), as: UTF8.self) }
            let status = process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
            return Result(status: status, stdout: text(outURL), stderr: text(errURL))
        }
    }

    /// Runs `tool` to completion and returns its stdout+stderr; throws if it fails or times out.
    @discardableResult
    public static func run(_ tool: String, _ arguments: [String], environment: [String: String]? = nil,
                           timeout: Double = 60) throws -> String {
        let result = try capture(tool, arguments, environment: environment, timeout: timeout)
        guard result.status == 0 else {
            throw Failure(description: "\(tool) \(arguments.joined(separator: " ")) failed (\(result.status)): \((result.stdout + result.stderr).suffix(800))")
        }
        return result.stdout + result.stderr
    }
}

/// Polls `condition` every 20 ms until it holds or `timeout` passes (a bound, never an assertion
/// on time). Returns whether it held.
public func eventually(timeout: Double = 5, _ condition: () -> Bool) -> Bool {
    let end = Date().addingTimeInterval(timeout)
    while Date() < end {
        if condition() { return true }
        Thread.sleep(forTimeInterval: 0.02)
    }
    return condition()
}
