import Foundation

/// Runs external tools (ffmpeg, sox, pactl, the built feedctl) for the daemon tests.
enum ProcessRunner {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// What a finished process left behind.
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs `executable` with a hard time limit (a hung child is killed and reported, never waited
    /// on forever). Output goes through temp files, so a chatty child can't block on a full pipe.
    static func capture(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
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
        let stdout = (try? String(contentsOf: outURL, encoding: .utf8)) ?? ""
        let stderr = (try? String(contentsOf: errURL, encoding: .utf8)) ?? ""
        return Result(status: process.terminationStatus, stdout: stdout, stderr: stderr)
    }

    /// Runs `tool` to completion and returns its stdout+stderr; throws if it fails.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String], environment: [String: String]? = nil,
                    timeout: Double = 60) throws -> String {
        let result = try capture(tool, arguments, environment: environment, timeout: timeout)
        guard result.status == 0 else {
            throw Failure(description: "\(tool) \(arguments.joined(separator: " ")) failed (\(result.status)): \((result.stdout + result.stderr).suffix(800))")
        }
        return result.stdout + result.stderr
    }
}

/// Polls `condition` every 20 ms until it holds or `timeout` passes. Returns whether it held.
func eventually(timeout: Double = 5, _ condition: () -> Bool) -> Bool {
    let end = Date().addingTimeInterval(timeout)
    while Date() < end {
        if condition() { return true }
        Thread.sleep(forTimeInterval: 0.02)
    }
    return condition()
}
