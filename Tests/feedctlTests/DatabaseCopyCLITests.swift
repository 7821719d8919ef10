import Foundation
import TestSupport
import XCTest

/// `feedctl db copy` through the built binary: a library made by the CLI copied into a new
/// PostgreSQL database and back into a new file, each table's rows and checksum printed; a
/// target that is not new refused in one line, exit status 1.
final class DatabaseCopyCLITests: XCTestCase {
    func testACopyPrintsEachTablesCheckAndRefusesATargetThatIsNotNew() throws {
        let dir = TempDir()
        let source = dir.file("library.sqlite")
        XCTAssertEqual(try feedctl(["user", "add", "alice", "--db", source]).status, 0)
        XCTAssertEqual(try feedctl(["collection", "create", "Favourites", "--db", source]).status, 0)
        let database = try TestPostgres.createEmptyDatabase()
        defer { TestPostgres.drop(database.name) }

        let there = try feedctl(["db", "copy", "--from", source, "--to", database.url])
        XCTAssertEqual(there.status, 0, there.stderr)
        let lines = there.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first?.split(separator: " ", omittingEmptySubsequences: true), ["TABLE", "ROWS", "CHECKSUM"])
        // A line per table (LibraryCopyTests checks that every table is among them), then the sum.
        let tables = lines.count - 2
        XCTAssertGreaterThan(tables, 2, there.stdout)
        let users = try XCTUnwrap(lines.first { $0.hasPrefix("users ") }).split(separator: " ")
        XCTAssertEqual(users[1], "2")
        XCTAssertEqual(users[2].count, 16)
        XCTAssertTrue(lines.contains { $0.hasPrefix("collections ") && $0.split(separator: " ")[1] == "1" }, there.stdout)
        XCTAssertEqual(lines.last, "copied \(lines.dropFirst().dropLast().reduce(0) { $0 + (Int($1.split(separator: " ")[1]) ?? 0) }) rows"
                                   + " in \(tables) tables from \(source) to \(database.url): every table's count and checksum match")

        let again = try feedctl(["db", "copy", "--from", source, "--to", database.url])
        XCTAssertEqual(again.status, 1)
        XCTAssertEqual(again.stdout, "")
        XCTAssertEqual(again.stderr, "feedctl: --to \(database.url) is not empty (it has users, collections, changes): db copy writes only into a new library"
                                     + " (a new file, or an empty PostgreSQL database); nothing was written\n")

        let back = try feedctl(["db", "copy", "--from", database.url, "--to", dir.file("back.sqlite")])
        XCTAssertEqual(back.status, 0, back.stderr)
        XCTAssertEqual(back.stderr, "feedctl: created the library at \(dir.file("back.sqlite"))\n")
        // The same checks, in the same order, as the copy there: the file holds what the source held.
        XCTAssertEqual(back.stdout.split(separator: "\n").dropLast(), there.stdout.split(separator: "\n").dropLast())
        XCTAssertEqual(try feedctl(["user", "list", "--db", dir.file("back.sqlite")]).stdout, "1: owner (owner, admin, no password)\n2: alice (no password)\n")
    }

    private func feedctl(_ arguments: [String]) throws -> ProcessRunner.Result {
        try ProcessRunner.capture(try DaemonTestCase.feedctlBinary().path, arguments, environment: ["HOME": NSTemporaryDirectory(), "PATH": "/usr/bin:/bin"])
    }
}
