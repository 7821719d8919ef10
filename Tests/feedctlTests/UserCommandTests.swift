import Accounts
import FeedModel
import Foundation
import LibrarySQLite
import LibraryStore
import TestSupport
import XCTest

/// `feedctl user …` through the built binary, on a real library file (issue 15).
final class UserCommandTests: XCTestCase {
    private var dir: TempDir!
    private var db: String { dir.file("library.sqlite") }

    override func setUp() async throws {
        dir = TempDir()
        _ = try SQLiteLibrary(path: db)
    }

    private func feedctl(_ arguments: String...) throws -> ProcessRunner.Result {
        try ProcessRunner.capture(try DaemonTestCase.feedctlBinary().path, arguments + ["--db", db])
    }

    /// `feedctl ARGS` with `input` on its standard input (a pipe, never a terminal).
    private func feedctl(input: String, _ arguments: String...) throws -> ProcessRunner.Result {
        let command = ([try DaemonTestCase.feedctlBinary().path] + arguments + ["--db", db])
            .map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        return try ProcessRunner.capture("/bin/sh", ["-c", "printf '%s\\n' \"$PW\" | \(command)"],
                                         environment: ProcessInfo.processInfo.environment.merging(["PW": input]) { $1 })
    }

    /// An admin's single sign-on tools: a user's identities listed, and one unlinked, never the
    /// last way a user has to sign in.
    func testIdentitiesAndUnlink() async throws {
        let library = try SQLiteLibrary(path: db)
        let issuer = "https://id.example.com/"
        let dana = try await library.addUser(names: ["dana"], issuer: issuer, subject: "auth0|dana", email: "dana@example.com", now: 1_800_000_000)
        try await library.link(issuer: "https://sso.example.org/realms/home", subject: "d-42", email: nil, to: dana.id, now: 1_800_000_060)
        _ = try await library.user(issuer: issuer, subject: "auth0|dana", now: 1_800_000_120)
        _ = try await library.addUser(names: ["erin"], issuer: issuer, subject: "auth0|erin", email: nil, now: 1_800_000_000)

        var r = try feedctl("user", "identities", "dana")
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 2, r.stdout)
        XCTAssertTrue(lines.first?.hasPrefix("https://id.example.com/ auth0|dana <dana@example.com>, linked ") == true, r.stdout)
        XCTAssertFalse(lines.first?.hasSuffix("last sign-in never") ?? true, r.stdout)
        XCTAssertTrue(lines.last?.hasPrefix("https://sso.example.org/realms/home d-42, linked ") == true, r.stdout)
        XCTAssertTrue(lines.last?.hasSuffix(", last sign-in never") == true, r.stdout)
        r = try feedctl("user", "identities", "dana", "--json")
        let rows = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]], r.stdout)
        XCTAssertEqual(rows.map { $0["subject"] as? String }, ["auth0|dana", "d-42"])
        XCTAssertTrue(rows[1]["email"] is NSNull && rows[1]["last_used_at"] is NSNull, "\(rows[1])")
        XCTAssertEqual(Set(rows[0].keys), ["issuer", "subject", "email", "linked_at", "last_used_at"], "the account export's shape")
        XCTAssertEqual(try feedctl("user", "identities", "owner").stdout, "owner has no identities\n")

        r = try feedctl("user", "unlink", "dana", issuer, "auth0|erin")
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr, "feedctl: dana has no identity auth0|erin at https://id.example.com/ (feedctl user identities dana)\n")
        r = try feedctl("user", "unlink", "dana", issuer, "auth0|dana")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "unlinked auth0|dana at https://id.example.com/ from dana\n")
        // Her last one: she has no password, so it stays.
        r = try feedctl("user", "unlink", "dana", "https://sso.example.org/realms/home", "d-42")
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr, "feedctl: d-42 at https://sso.example.org/realms/home is dana's only way to sign in (no password, no other identity): "
                       + "set a password first (feedctl user passwd dana)\n")
        let left = try await library.identities(of: nil).map(\.subject)
        XCTAssertEqual(left, ["auth0|erin", "d-42"])
        // With a password she may lose it.
        r = try feedctl(input: "a good password", "user", "passwd", "dana", "--password-stdin")
        XCTAssertEqual(r.status, 0, r.stderr)
        r = try feedctl("user", "unlink", "dana", "https://sso.example.org/realms/home", "d-42")
        XCTAssertEqual(r.status, 0, r.stderr)
        let after = try await library.identities(of: dana.id)
        XCTAssertEqual(after, [])
    }

    func testAddListPasswdRemove() async throws {
        var r = try feedctl("user", "add", "bob", "--admin")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "added user 2: bob (admin); no password yet: feedctl user passwd bob\n")
        r = try feedctl("user", "add", "bob")
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr, "feedctl: user \"bob\" already exists\n")

        // Never from argv; not without a terminal unless asked to read stdin.
        r = try feedctl("user", "passwd", "bob", "--password", "hunter22")
        XCTAssertEqual(r.status, 64, r.stderr)
        r = try feedctl("user", "passwd", "bob")
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr, "feedctl: no terminal to read the password from: pipe it with --password-stdin\n")
        r = try feedctl(input: "short", "user", "passwd", "bob", "--password-stdin")
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr, "feedctl: a password needs at least 8 characters\n")
        let library = try SQLiteLibrary(path: db)
        let before = try await library.passwordHash(of: "bob")
        XCTAssertNil(before, "a refused password changes nothing")

        r = try feedctl(input: "correct horse battery", "user", "passwd", "bob", "--password-stdin")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "password set for bob\n")
        // A new password ends the sessions logged in before it; other users' stay.
        let bobID = try await library.user(named: "bob").id
        for device in ["phone", "laptop"] {
            try await library.createSession(user: bobID, tokenHash: try SessionToken().hash, deviceName: device, now: Clock.now())
        }
        let owners = try await library.createSession(user: .owner, tokenHash: try SessionToken().hash, deviceName: nil, now: Clock.now())
        r = try feedctl(input: "correct horse battery", "user", "passwd", "bob", "--password-stdin")
        XCTAssertEqual(r.stdout, "password set for bob; ended 2 sessions\n", r.stderr)
        let stillThere = try await library.sessions(of: nil).map(\.id)
        XCTAssertEqual(stillThere, [owners.id])
        let hash = try await library.passwordHash(of: "bob")
        XCTAssertTrue(hash?.hasPrefix("$2b$12$") == true, hash ?? "nil")
        XCTAssertTrue(Password.verify("correct horse battery", hash: hash ?? ""))
        XCTAssertFalse(Password.verify("correct horse batterY", hash: hash ?? ""))

        r = try feedctl(input: "another good one", "user", "add", "carol", "--password-stdin")
        XCTAssertEqual(r.stdout, "added user 3: carol\n", r.stderr)
        r = try feedctl("user", "list", "--json")
        struct UserRow: Decodable, Equatable { let id: Int64; let name: String; let admin: Bool; let owner: Bool; let has_password: Bool }
        let rows = try JSONDecoder().decode([UserRow].self, from: Data(r.stdout.utf8))
        XCTAssertEqual(rows.dropFirst(), [UserRow(id: 2, name: "bob", admin: true, owner: false, has_password: true),
                                          UserRow(id: 3, name: "carol", admin: false, owner: false, has_password: true)])
        let owner = try XCTUnwrap(rows.first)
        XCTAssertEqual([owner.id, owner.admin ? 1 : 0, owner.owner ? 1 : 0, owner.has_password ? 1 : 0], [1, 1, 1, 0])

        r = try feedctl("user", "remove", owner.name, "--yes")
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr, "feedctl: the library's owner (\(owner.name)) cannot be removed\n")
        r = try feedctl("user", "remove", "carol", "--yes")
        XCTAssertEqual(r.stdout, "removed user carol\n", r.stderr)
        r = try feedctl("user", "remove", "carol", "--yes")
        XCTAssertEqual(r.stderr, "feedctl: no user \"carol\"\n")
    }

    func testSessionsAndRevoke() async throws {
        let library = try SQLiteLibrary(path: db)
        let bob = try await library.addUser(name: "bob", isAdmin: false, passwordHash: nil, now: 1)
        let now = Clock.now()
        let token = SessionToken()
        let phone = try await library.createSession(user: bob.id, tokenHash: try token.hash, deviceName: "phone", now: now)
        let laptop = try await library.createSession(user: bob.id, tokenHash: try SessionToken().hash, deviceName: nil, now: now + 1)
        let old = try await library.createSession(user: .owner, tokenHash: try SessionToken().hash, deviceName: "old", now: 1000)

        var r = try feedctl("user", "sessions", "--json")
        XCTAssertEqual(r.status, 0, r.stderr)
        let tokenHash = try token.hash
        XCTAssertFalse(r.stdout.contains(tokenHash) || r.stdout.contains(token.text), "never the token nor its hash")
        struct SessionRow: Decodable { let id: Int64; let user: String; let device: String?; let expired: Bool }
        let rows = try JSONDecoder().decode([SessionRow].self, from: Data(r.stdout.utf8))
        XCTAssertEqual(rows.map(\.id), [laptop.id, phone.id, old.id])
        XCTAssertEqual(rows.map(\.expired), [false, false, true])
        XCTAssertEqual(rows.map(\.device), [nil, "phone", "old"])
        r = try feedctl("user", "sessions", "bob")
        XCTAssertEqual(r.stdout.split(separator: "\n").count, 2, r.stdout)
        XCTAssertTrue(r.stdout.contains("\(phone.id): bob on phone, since "), r.stdout)

        r = try feedctl("user", "revoke", "\(phone.id)")
        XCTAssertEqual(r.stdout, "ended session \(phone.id)\n", r.stderr)
        let gone = try await library.session(tokenHash: try token.hash, now: now + 2)
        XCTAssertNil(gone, "a revoked token finds no session")
        r = try feedctl("user", "revoke", "\(phone.id)")
        XCTAssertEqual(r.stderr, "feedctl: no session \(phone.id)\n")
        r = try feedctl("user", "revoke", "--all", "bob")
        XCTAssertEqual(r.stdout, "ended 1 session of bob\n", r.stderr)
        r = try feedctl("user", "revoke", "--all", "bob", "\(old.id)")
        XCTAssertEqual(r.status, 64)
        let left = try await library.sessions(of: nil).map(\.id)
        XCTAssertEqual(left, [old.id])
    }

    /// `feedctl ARGS` on a terminal (script(1) gives it one), `answer` typed at it.
    private func feedctl(onTerminal answer: String, _ arguments: String...) throws -> ProcessRunner.Result {
        let command = ([try DaemonTestCase.feedctlBinary().path] + arguments + ["--db", db])
            .map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        return try ProcessRunner.capture("/bin/sh", ["-c", "printf '%s\\n' \"$ANSWER\" | script -qec \"$COMMAND\" /dev/null"],
                                         environment: ProcessInfo.processInfo.environment.merging(["ANSWER": answer, "COMMAND": command]) { $1 })
    }

    /// `user remove` asks first, on a terminal only; the same rule as the server's: never the
    /// owner nor the last admin.
    func testRemoveAsksFirstAndKeepsTheLastAdmin() async throws {
        let library = try SQLiteLibrary(path: db)
        _ = try await library.addUser(name: "dora", isAdmin: false, passwordHash: nil, now: 1)
        var r = try feedctl("user", "remove", "dora")
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr, "feedctl: user dora was not removed: this asks first, on a terminal; give --yes to go ahead without asking\n")
        r = try feedctl(onTerminal: "n", "user", "remove", "dora")
        XCTAssertEqual(r.status, 1, r.stdout)
        XCTAssertTrue(r.stdout.contains("remove user dora and everything that is theirs"), r.stdout)
        XCTAssertTrue(r.stdout.contains("feedctl: user dora was not removed"), r.stdout)
        await assertEqual(try await library.user(named: "dora").name, "dora", "still there")
        r = try feedctl(onTerminal: "y", "user", "remove", "dora")
        XCTAssertEqual(r.status, 0, r.stdout)
        XCTAssertTrue(r.stdout.contains("removed user dora"), r.stdout)
        await assertThrows(LibraryError.noUser("dora")) { try await library.user(named: "dora") }

        // The owner made no admin (by hand: nothing in feedctl does it): ann is the last admin.
        _ = try await library.addUser(name: "ann", isAdmin: true, passwordHash: nil, now: 1)
        try await TestDatabase.sqlite(path: db).execute("UPDATE users SET is_admin = 0 WHERE id = 1")
        r = try feedctl("user", "remove", "ann", "--yes")
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr, "feedctl: \"ann\" is the library's last admin and cannot be removed: make another admin first (feedctl user add --admin)\n")
    }

    /// `user export`: the user's own data, to standard output or a file, and nobody else's.
    func testExportWritesTheUsersDataAndNobodyElses() async throws {
        let library = try SQLiteLibrary(path: db)
        let bob = try await library.addUser(name: "bob", isAdmin: false, passwordHash: "$2b$12$bobshash", now: 1)
        let carol = try await library.addUser(name: "carol", isAdmin: false, passwordHash: nil, now: 1)
        let asBob = library.acting(as: bob.id)
        let channel = try await asBob.addTestChannel("bobs")
        _ = try await asBob.ingest(items: [item("b1"), item("b2")], channelID: channel, now: 2)
        try await asBob.setProgress(try await asBob.id(of: "b1"), seconds: 42, now: 3)
        _ = try await asBob.saveVideo(item: try await asBob.id(of: "b2"), notes: "bob's note", now: 3)
        try await asBob.createSession(user: bob.id, tokenHash: "bobs-token-hash", deviceName: "phone", now: 3)
        let asCarol = library.acting(as: carol.id)
        _ = try await asCarol.addTestChannel("carols")
        try await asCarol.createCollection("carol's secret list", now: 3)

        var r = try feedctl("user", "export", "bob")
        XCTAssertEqual(r.status, 0, r.stderr)
        let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(document["format"] as? String, "feedctl-account-export")
        XCTAssertEqual((document["profile"] as? [String: Any])?["name"] as? String, "bob")
        XCTAssertEqual((document["subscriptions"] as? [[String: Any]])?.map { $0["feed_url"] as? String }, ["https://example.com/bobs.xml"])
        XCTAssertEqual((document["watch_state"] as? [[String: Any]])?.map { $0["progress_seconds"] as? Int }, [42])
        XCTAssertEqual((document["saved"] as? [[String: Any]])?.map { $0["notes"] as? String }, ["bob's note"])
        XCTAssertEqual((document["sessions"] as? [[String: Any]])?.map { $0["device"] as? String }, ["phone"])
        for leak in ["carol", "$2b$", "bobs-token-hash"] { XCTAssertFalse(r.stdout.contains(leak), leak) }

        let file = dir.file("bob.json")
        r = try feedctl("user", "export", "bob", "-o", file)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "")
        let written = try String(contentsOfFile: file, encoding: .utf8)
        XCTAssertEqual(written.replacingOccurrences(of: #""exported_at":\d+"#, with: "", options: .regularExpression),
                       try feedctl("user", "export", "bob").stdout.replacingOccurrences(of: #""exported_at":\d+"#, with: "", options: .regularExpression))
        r = try feedctl("user", "export", "bob", "--opml", "--output", dir.file("bob.opml"))
        XCTAssertEqual(r.status, 0, r.stderr)
        let opml = try String(contentsOfFile: dir.file("bob.opml"), encoding: .utf8)
        XCTAssertTrue(opml.contains("xmlUrl=\"https://example.com/bobs.xml\""), opml)
        XCTAssertFalse(opml.contains("carols"))

        r = try feedctl("user", "export", "nobody", "-o", dir.file("nobody.json"))
        XCTAssertEqual(r.stderr, "feedctl: no user \"nobody\"\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("nobody.json")), "no file for a failed export")
        r = try feedctl("user", "export", "bob", "-o", dir.file("missing/bob.json"))
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.hasPrefix("feedctl: cannot write \(dir.file("missing/bob.json")): No such file or directory"), r.stderr)
    }
}
