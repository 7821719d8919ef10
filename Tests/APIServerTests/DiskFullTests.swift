@testable import APIServer
import FeedModel
import Accounts
import Foundation
@testable import LibrarySQLite
import TestSupport
import XCTest

/// A full disk, for real: the library lives on a small tmpfs this test mounts (as root, in the
/// test's own mount namespace under the CI's runner) and fills (issue 26: writes answered 500
/// with the library's path, and nobody could log in, since a login writes).
///
/// SQLite's own: the library is a file on that small file system. A PostgreSQL server's disk
/// is the server's, not one a test can fill under it; on that engine these are skipped
/// (docs/testing.md lists the API tests that are SQLite's own).
final class DiskFullTests: XCTestCase {
    /// A SQLite library at `path`, and the store it is (for `checkpoint`).
    private func sqliteLibrary(at path: String) async throws -> (TestDatabase, SQLiteLibrary) {
        let database = try await TestDatabase.sqlite(path: path)
        return (database, try XCTUnwrap(database.database as? SQLiteLibrary))
    }

    /// The tmpfs's size: room for a new library (its migrations leave a WAL of about 3 MB until
    /// its first checkpoint; 4 MB no longer held it once v23 came) and the test's writes before
    /// it fills the rest.
    static let megabytes = 8

    /// A tmpfs of `megabytes` on a new directory, lazily unmounted at the end of the test.
    private func smallFileSystem(megabytes: Int) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("feedctl-full-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let mount = try ProcessRunner.capture("/bin/mount", ["-t", "tmpfs", "-o", "size=\(megabytes)m", "tmpfs", dir], timeout: 20)
        guard mount.status == 0 else {
            throw XCTSkip("a full disk is made by mounting a small tmpfs, which needs root: \(mount.stderr)")
        }
        addTeardownBlock {
            _ = try? ProcessRunner.capture("/bin/umount", ["-l", dir], timeout: 20)
            try? FileManager.default.removeItem(atPath: dir)
        }
        return dir
    }

    /// Writes a file until the file system has no room left.
    private func fill(_ dir: String) throws {
        let path = dir + "/filler"
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let file = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? file.close() }
        for size in [65_536, 4_096, 512, 1] {
            let chunk = Data(repeating: 0x2E, count: size)
            while (try? file.write(contentsOf: chunk)) != nil {}
        }
    }

    func testAFullDiskRefusesWritesWithoutPathsAndLetsLoginsThrough() async throws {
        try skipUnlessSQLite("its library is a file on a small file system the test fills")
        let dir = try smallFileSystem(megabytes: Self.megabytes)
        let (database, library) = try await sqliteLibrary(at: dir + "/library.sqlite")
        let h = try await APIHarness(logins: true, database: database)
        try await h.addUser("ann", password: "ann's password", admin: true)
        let before = try await h.login("ann", "ann's password")
        h.token = before

        // The disk fills; the library's log is emptied into its file first, so that any write
        // must grow a file.
        try await library.checkpoint()
        try fill(dir)

        let write = try await h.call("POST", "/api/collections", body: #"{"name": "Later"}"#)
        XCTAssertEqual(write.status, 507, write.text)
        let detail = try XCTUnwrap(try write.object()["detail"] as? String)
        XCTAssertEqual(detail, APIError.diskFull)
        XCTAssertFalse(write.text.contains(dir), "no path in the answer")
        let reads = try await h.call("GET", "/api/collections").status
        XCTAssertEqual(reads, 200, "reads still work")

        // Logins go through: the session waits in memory until it can be written.
        let during = try await h.login("ann", "ann's password")
        let me = try await h.object("GET", "/api/auth/me", token: during)
        XCTAssertEqual(me["authenticated"] as? Bool, true)
        let feed = try await h.call("GET", "/api/feed", token: during).status
        XCTAssertEqual(feed, 200)
        let storedWhileFull = try await library.sessions(of: nil).count
        XCTAssertEqual(storedWhileFull, 1, "not written yet")

        // Room again: at its next use (a minute on), the session is written, and writes work.
        try FileManager.default.removeItem(atPath: dir + "/filler")
        h.clock.advance(by: SessionRule.lastUsedResolution)
        let meLater = try await h.object("GET", "/api/auth/me", token: during)["authenticated"] as? Bool
        XCTAssertEqual(meLater, true)
        let storedLater = try await library.sessions(of: nil).count
        XCTAssertEqual(storedLater, 2, "written once there was room")
        let created = try await h.call("POST", "/api/collections", body: #"{"name": "Later"}"#, token: during).status
        XCTAssertEqual(created, 201)
        _ = try await h.object("POST", "/api/auth/logout", token: during)
        let afterLogout = try await h.object("GET", "/api/auth/me", token: during)["authenticated"] as? Bool
        XCTAssertEqual(afterLogout, false)
    }

    /// A session kept in memory ends as a stored one would: at logout, and when its user's
    /// password changes (`feedctl user passwd` ends stored sessions only).
    func testASessionKeptInMemoryEndsAsAStoredOneDoes() async throws {
        try skipUnlessSQLite("its library is a file on a small file system the test fills")
        let dir = try smallFileSystem(megabytes: Self.megabytes)
        let (database, library) = try await sqliteLibrary(at: dir + "/library.sqlite")
        let h = try await APIHarness(logins: true, database: database)
        try await h.addUser("bo", password: "bo's password", admin: false)
        try await library.checkpoint()
        try fill(dir)
        let first = try await h.login("bo", "bo's password")
        let second = try await h.login("bo", "bo's password")
        _ = try await h.object("POST", "/api/auth/logout", token: first)
        let loggedOut = try await h.object("GET", "/api/auth/me", token: first)["authenticated"] as? Bool
        XCTAssertEqual(loggedOut, false)
        let stillIn = try await h.object("GET", "/api/auth/me", token: second)["authenticated"] as? Bool
        XCTAssertEqual(stillIn, true)
        try FileManager.default.removeItem(atPath: dir + "/filler")
        try await library.setPasswordHash(try Password.hash("a new password", cost: 4), for: "bo")
        let afterNewPassword = try await h.object("GET", "/api/auth/me", token: second)["authenticated"] as? Bool
        XCTAssertEqual(afterNewPassword, false)
    }
}
