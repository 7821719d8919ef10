import XCTest
import Foundation

/// Where the package's own files are, found from this file's path: the tests need nothing
/// outside the repository.
public enum PackagePaths {
    /// The package root (the directory holding Package.swift).
    public static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// One of the package's programs from the build the tests run from: beside the test
    /// executable (a build puts both in one directory, wherever its scratch path is:
    /// scripts/test.sh builds outside the clone), else in the package's `.build/debug`.
    public static func builtProgram(_ name: String) -> URL? {
        [Bundle.main.executableURL?.deletingLastPathComponent(), root.appendingPathComponent(".build/debug")]
            .compactMap { $0?.appendingPathComponent(name) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// `fixtures/<relative path>`.
    public static func fixture(_ relativePath: String) -> URL {
        root.appendingPathComponent("fixtures").appendingPathComponent(relativePath)
    }

    /// A fresh temporary directory, removed at the end of the test.
    public static func temporaryDirectory(_ test: XCTestCase) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("feedctl-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        test.addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        return dir
    }
}

/// A fresh directory under the system temp dir, removed when the value is dropped.
public final class TempDir: Sendable {
    public let path: String
    public init() {
        path = (NSTemporaryDirectory() as NSString).appendingPathComponent("feedctl-test-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    public func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }
    deinit { try? FileManager.default.removeItem(atPath: path) }
}
