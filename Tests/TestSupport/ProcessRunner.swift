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
        let process = Process()
        if executable.hasPrefix("/") {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [executable] + arguments
        }
        if let environment { process.environment = environment }
        let tmp = FileManager.default.temporaryDirectory
        let outURL = tmp.appendingPathComponent("feedctl-out-\(UUID().uuidString)")
        let errURL = tmp.appendingPathComponent("feedctl-err-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: outURL); try? FileManager.default.removeItem(at: errURL) }
        let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        let done = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in done.signal() }
        try process.run()
        try? out.close(); try? err.close()
        if done.wait(timeout: .now() + timeout) == .timedOut {
            process.terminate()
            if done.wait(timeout: .now() + 2) == .timedOut {
                kill(process.processIdentifier, SIGKILL)
                _ = done.wait(timeout: .now() + 5)   // not forever: a leaked descriptor can hide the exit
            }
            throw Failure(description: "\(executable) \(arguments.joined(separator: " ")) did not finish within \(Int(timeout)) s")
        }
        // Decoded leniently: a stray invalid byte must show in a failure message, not empty it.
        func text(_ url: URL) -> String { String(decoding: (try? Data(contentsOf: url)) ?? Data(), as: UTF8.self) }
        return Result(status: process.terminationStatus, stdout: text(outURL), stderr: text(errURL))
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
