import Foundation
import TestSupport
import XCTest

/// `feedctl serve`, the real executables: the CLI finds feedctl-serve beside itself and execs
/// it; what must not start says so in one line.
final class ServeCommandTests: XCTestCase {
    private func binary(_ name: String) throws -> String {
        let candidates = [Bundle(for: Self.self).bundleURL.deletingLastPathComponent(), PackagePaths.root.appendingPathComponent(".build/debug")]
            .map { $0.appendingPathComponent(name).path }
        return try XCTUnwrap(candidates.first { FileManager.default.isExecutableFile(atPath: $0) }, "\(name) not built")
    }

    private func feedctl(_ arguments: [String]) throws -> ProcessRunner.Result {
        try ProcessRunner.capture(try binary("feedctl"), arguments, timeout: 30)
    }

    func testWhatMustNotStartSaysWhyInOneLine() throws {
        let library = try TestLibrary()
        let db = library.library.path
        let refusals: [([String], Int32, String)] = [
            (["serve", "--open", "--listen", "0.0.0.0:0", "--db", db], 1,
             "feedctl: --open serves the library without login, so only on loopback (127.0.0.1, ::1, localhost), not 0.0.0.0\n"),
            (["serve", "--open", "--listen", "127.0.0.1", "--db", db], 64,
             "feedctl: --listen takes HOST:PORT (e.g. 127.0.0.1:8000), not \"127.0.0.1\"\n"),
            (["serve", "--open", "--listen", "127.0.0.1:0", "--db", db + ".missing"], 1,
             "feedctl: no library at \(db).missing (`feedctl channel add URL` or `feedctl channel import FILE` creates it)\n"),
        ]
        for (arguments, status, message) in refusals {
            let result = try feedctl(arguments)
            XCTAssertEqual(result.status, status, arguments.joined(separator: " "))
            XCTAssertEqual(result.stderr, message)
        }
    }

    /// Without `--open` the server takes logins, on any address, and says so; with no user who
    /// has a password it says how to make one.
    func testServeWithoutOpenTakesLoginsAndSaysHowToMakeAUser() throws {
        let library = try TestLibrary()
        let server = try ProcessRunner.start(try binary("feedctl"), ["serve", "--listen", "0.0.0.0:0", "--db", library.library.path])
        var port: Int?
        XCTAssertTrue(eventually(timeout: 20) {
            guard let range = server.stderrSoFar.range(of: #"listening on http://0\.0\.0\.0:(\d+)"#, options: .regularExpression) else { return false }
            port = Int(server.stderrSoFar[range].split(separator: ":").last ?? "")
            return port != nil && server.stderrSoFar.contains("no user can log in yet")
        }, server.stderrSoFar)
        XCTAssertTrue(server.stderrSoFar.contains(
            "(logins: every request but /health and /api/auth/* needs a token from POST /api/auth/login)"), server.stderrSoFar)
        XCTAssertTrue(server.stderrSoFar.contains(
            "no user can log in yet (none has a password): make one with `feedctl user add NAME --admin --password-stdin`"
            + ", or set one with `feedctl user passwd NAME`"), server.stderrSoFar)
        let base = "http://127.0.0.1:\(try XCTUnwrap(port))"
        let mode = try ProcessRunner.capture("/usr/bin/curl", ["-sS", "--max-time", "10", base + "/api/auth/mode"], timeout: 15)
        let modeObject = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(mode.stdout.utf8)) as? [String: Any], mode.stdout)
        XCTAssertEqual(modeObject["mode"] as? String, "protected")
        let feed = try ProcessRunner.capture("/usr/bin/curl", ["-sS", "--max-time", "10", "-o", "/dev/null", "-w", "%{http_code}", base + "/api/feed"],
                                             timeout: 15)
        XCTAssertEqual(feed.stdout, "401")
        server.signal(SIGTERM)
        let result = try server.wait(timeout: 20)
        XCTAssertEqual(result.status, 0, result.stderr)
    }

    func testServeRunsTheServerAndSaysItIsOpen() throws {
        let library = try TestLibrary()
        let server = try ProcessRunner.start(try binary("feedctl"), ["serve", "--open", "--listen", "127.0.0.1:0", "--db", library.library.path])
        var port: Int?
        XCTAssertTrue(eventually(timeout: 20) {
            guard let range = server.stderrSoFar.range(of: #"listening on http://127\.0\.0\.1:(\d+)"#, options: .regularExpression) else { return false }
            port = Int(server.stderrSoFar[range].split(separator: ":").last ?? "")
            return port != nil
        }, server.stderrSoFar)
        XCTAssertTrue(server.stderrSoFar.contains("open mode: no login, every request acts for the library's owner; loopback only"))
        let health = try ProcessRunner.capture("/usr/bin/curl", ["-sS", "--max-time", "10", "http://127.0.0.1:\(try XCTUnwrap(port))/health"], timeout: 15)
        XCTAssertEqual(health.status, 0, health.stderr)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(health.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(object["status"] as? String, "healthy")
        server.signal(SIGTERM)
        let result = try server.wait(timeout: 20)
        XCTAssertEqual(result.status, 0, "SIGTERM shuts the server down gracefully: \(result.stderr)")
    }
}
