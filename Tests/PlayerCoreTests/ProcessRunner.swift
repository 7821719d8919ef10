import Foundation

/// Runs external tools (ffmpeg, sox, parec, python3) for the tests.
enum ProcessRunner {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs `tool` to completion and returns its stdout+stderr; throws if it fails.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String], environment: [String: String]? = nil) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        if let environment { process.environment = environment }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let output = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 else {
            throw Failure(description: "\(tool) \(arguments.joined(separator: " ")) failed (\(process.terminationStatus)): \(output.suffix(800))")
        }
        return output
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
