import Foundation
import XCTest

/// Paths and small helpers shared by the Rumble, Subscribe and Text tests.
enum RumbleTestSupport {
    /// The package root (this file is `Tests/FeedIngestTests/RumbleTestSupport.swift`).
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func fixture(_ relativePath: String) throws -> [UInt8] {
        let url = packageRoot.appendingPathComponent("fixtures").appendingPathComponent(relativePath)
        return Array(try Data(contentsOf: url))
    }

    /// A fresh temporary directory, removed when the test ends.
    static func temporaryDirectory(_ test: XCTestCase) throws -> URL {
        let dir = FileManager.default.temporaryDirectory
            .appendingPathComponent("feedctl-rumble-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        test.addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        return dir
    }

    /// Runs a program to completion; fails the test on a non-zero exit.
    static func run(_ executable: String, _ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let stderr = Pipe()
        process.standardError = stderr
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let errors = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "\(executable) \(arguments): \(String(decoding: errors, as: UTF8.self))",
                       file: file, line: line)
    }
}
