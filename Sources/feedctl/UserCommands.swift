import AccountExport
import Accounts
import ArgumentParser
import CLISupport
import Downloads
import FeedIngest
import FeedModel
import Foundation
import LibraryStore

/// `feedctl user …`: the people who use the library through `feedctl serve`, and their sessions.
/// The CLI itself always acts for the library's owner.
struct UserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user",
        abstract: "Users of the library (for feedctl serve) and their login sessions.",
        subcommands: [Add.self, List.self, Export.self, Remove.self, Passwd.self, Sessions.self, Revoke.self, Identities.self, Unlink.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a user (no password until `user passwd`, unless --password-stdin).")
        @OptionGroup var library: LibraryOptions
        @Flag(help: "May manage users through the server.") var admin = false
        @Flag(help: "Read the password from one line of standard input.") var passwordStdin = false
        @Argument(help: "User name.") var name: String
        func run() async throws {
            try await runReporting {
                // A server's first command: it makes the library, as `channel add` does.
                let lib = try await library.open(creating: true)
                let hash = try passwordStdin ? Password.hash(PasswordInput.read(for: name, fromStdin: true)) : nil
                let user = try await lib.addUser(name: name, isAdmin: admin, passwordHash: hash, now: Clock.now())
                print("added user \(user.id): \(Terminal.printable(user.name))\(user.isAdmin ? " (admin)" : "")"
                      + (hash == nil ? "; no password yet: feedctl user passwd \(user.name)" : ""))
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List users.")
        @OptionGroup var library: LibraryOptions
        @OptionGroup var output: OutputOptions
        func run() async throws {
            try await runReporting {
                let users = try await library.open().users()
                if output.json { return try printJSON(users.map(UserJSON.init)) }
                for u in users {
                    var notes: [String] = []
                    if u.id == .owner { notes.append("owner") }
                    if u.isAdmin { notes.append("admin") }
                    if !u.hasPassword { notes.append("no password") }
                    print("\(u.id): \(Terminal.printable(u.name))\(notes.isEmpty ? "" : " (\(notes.joined(separator: ", ")))")")
                }
            }
        }
    }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write everything that is a user's as one JSON document, or with --opml their subscriptions.",
            discussion: """
                The document is the one GET /api/account/export answers (its shape is versioned: docs/server.md, "Your \
                data"): profile, subscriptions, watch state, history, saved items and videos with notes, collections with \
                their items, the queue, player state, gpodder devices and episode actions, sessions (never a password \
                hash or a token). It is written as it is read, a page at a time, to standard output or to FILE (which \
                appears only once whole). Offer it before `user remove`.
                """)
        @OptionGroup var library: LibraryOptions
        @Flag(help: "Only the subscriptions, as OPML 2.0 (as `channel export`).") var opml = false
        @Option(name: [.customShort("o"), .long], help: ArgumentHelp("Write to this file instead of standard output.", valueName: "file"))
        var output: String?
        @Argument(help: "User name.") var name: String
        func run() async throws {
            try await runReporting {
                let database = try await library.openDatabase()
                let user = try await database.owner.user(named: name)
                let store = database.store(for: user.id)
                let file = try output.map { path throws(CommandError) in try FileStream(path: path) }
                let write = { (text: String) throws in
                    if let file { try file.write(text.utf8) } else { try FileHandle.standardOutput.write(contentsOf: Data(text.utf8)) }
                }
                if opml {
                    try write(try await OPMLSubscriptions.export(store, now: Clock.now()))
                } else {
                    try await AccountExport.write(user: user, sessions: try await database.owner.sessions(of: user.id),
                                                  identities: try await database.owner.identities(of: user.id), library: store,
                                                  now: Clock.now()) { chunk in try write(chunk) }
                }
                try file?.commit()
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove a user with everything that is theirs (asks first, unless --yes).",
            discussion: """
                Their subscriptions, watch state, saved items, collections, history, queue, player state, gpodder devices \
                and actions, and sessions go (their next request to `feedctl serve` gets 401), as when they delete their \
                account themselves (DELETE /api/account) or an admin removes them (DELETE /api/users/ID). Channels only \
                that user followed go too, with their items and downloaded files. The library's owner and its last admin \
                cannot be removed. `user export NAME` first keeps a copy of their data.
                """)
        @OptionGroup var library: LibraryOptions
        @OptionGroup var media: MediaOptions
        @Flag(help: "Keep the downloaded files of the channels only that user followed.") var keepDownloads = false
        @Flag(help: "Do not ask (the question needs a terminal: a script gives --yes).") var yes = false
        @Argument(help: "User name.") var name: String
        func run() async throws {
            try await runReporting {
                let store = DownloadStore(directory: try media.directory(for: library))
                let lib = try await library.open()
                let user = try await lib.user(named: name)   // before asking
                if !yes {
                    try Confirmation.ask("remove user \(Terminal.printable(user.name)) and everything that is theirs (subscriptions, watch state, "
                                         + "saved items, collections, history, queue, sessions)? It cannot be undone: "
                                         + "`feedctl user export \(Terminal.printable(user.name)) -o FILE` keeps a copy.",
                                         refusal: "user \(Terminal.printable(user.name)) was not removed")
                }
                if !keepDownloads { try await store.adoptLegacy(in: lib) }
                let removal = try await lib.removeUser(named: user.name)
                var details: [String] = []
                if removal.channels > 0 {
                    details.append("\(Formats.count(removal.channels, "channel")) only they followed, \(Formats.count(removal.items.count, "item"))")
                }
                var failures = 0
                if !keepDownloads {
                    // After the library let go of them, as `channel remove` does.
                    let (removed, errors) = store.remove(items: removal.items)
                    errors.forEach { printError($0.description) }
                    failures = errors.count
                    if !removed.isEmpty {
                        let freed = removed.reduce(Int64(0)) { $0 + $1.bytes }
                        details.append("deleted \(Formats.count(removed.count, "downloaded file")), \(Formats.bytes(freed)) freed")
                    }
                }
                print("removed user \(Terminal.printable(user.name))" + (details.isEmpty ? "" : " (\(details.joined(separator: "; ")))"))
                if failures > 0 { throw PartialFailure("\(Formats.count(failures, "downloaded file")) could not be deleted") }
            }
        }
    }

    struct Passwd: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set a user's password (asked on the terminal without echo, or --password-stdin); their sessions end.")
        @OptionGroup var library: LibraryOptions
        @Flag(help: "Read the password from one line of standard input.") var passwordStdin = false
        @Argument(help: "User name.") var name: String
        func run() async throws {
            try await runReporting {
                // The owner's password may be a server's first command (the owner comes with the library).
                let lib = try await library.open(creating: true)
                let user = try await lib.user(named: name)  // before asking for a password
                let hash = try Password.hash(PasswordInput.read(for: name, fromStdin: passwordStdin))
                try await lib.setPasswordHash(hash, for: name)
                // A new password is often a response to an old one leaking: what logged in with
                // it (or with anything before now) logs in again.
                let ended = try await lib.revokeSessions(of: user.id)
                print("password set for \(Terminal.printable(name))" + (ended > 0 ? "; ended \(Formats.count(ended, "session"))" : ""))
            }
        }
    }

    struct Sessions: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List login sessions (of one user, or everyone's), newest first.")
        @OptionGroup var library: LibraryOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "User name.") var name: String?
        func run() async throws {
            try await runReporting {
                let lib = try await library.open()
                let users = try await lib.users()
                var only: UserID?
                if let name { only = try await lib.user(named: name).id }
                let sessions = try await lib.sessions(of: only)
                let names = Dictionary(users.map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
                let now = Clock.now()
                if output.json { return try printJSON(sessions.map { SessionJSON($0, user: names[$0.userID] ?? "", now: now) }) }
                if sessions.isEmpty { print("no sessions"); return }
                for s in sessions {
                    let state = s.expiresAt <= now ? "expired" : "expires \(Formats.minute(s.expiresAt))"
                    print("\(s.id): \(Terminal.printable(names[s.userID] ?? "?")) on \(Terminal.printable(s.deviceName ?? "an unnamed device"))"
                          + ", since \(Formats.minute(s.createdAt)), last used \(s.lastUsedAt.map(Formats.minute) ?? "never"), \(state)")
                }
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "End a login session, or with --all every session of a user.")
        @OptionGroup var library: LibraryOptions
        @Option(name: .customLong("all"), help: ArgumentHelp("End every session of this user.", valueName: "name")) var allOf: String?
        @Argument(help: "Session id.") var id: Int64?
        func validate() throws {
            guard (id == nil) != (allOf == nil) else { throw ValidationError("give a session id or --all NAME (one of them)") }
        }
        func run() async throws {
            try await runReporting {
                let lib = try await library.open()
                if let allOf {
                    let user = try await lib.user(named: allOf)
                    let n = try await lib.revokeSessions(of: user.id)
                    print("ended \(Formats.count(n, "session")) of \(Terminal.printable(user.name))")
                } else if let id {
                    try await lib.revokeSession(id: id)
                    print("ended session \(id)")
                }
            }
        }
    }
}

extension UserCommand {
    struct Identities: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List a user's single sign-on identities (issuer, subject) at OpenID providers.")
        @OptionGroup var library: LibraryOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "User name.") var name: String
        func run() async throws {
            try await runReporting {
                let lib = try await library.open()
                let user = try await lib.user(named: name)
                let identities = try await lib.identities(of: user.id)
                if output.json { return try printJSON(identities.map(IdentityRecord.init)) }
                if identities.isEmpty { print("\(Terminal.printable(user.name)) has no identities"); return }
                for identity in identities {
                    print("\(Terminal.printable(identity.issuer)) \(Terminal.printable(identity.subject))"
                          + (identity.email.map { " <\(Terminal.printable($0))>" } ?? "")
                          + ", linked \(Formats.minute(identity.createdAt)), last sign-in \(identity.lastUsedAt.map(Formats.minute) ?? "never")")
                }
            }
        }
    }

    struct Unlink: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Unlink a single sign-on identity from a user (never their last way to sign in).",
            discussion: """
                The identity (ISSUER and SUBJECT exactly as `user identities NAME` lists them) no longer signs NAME in; \
                their sessions stay. Refused when it would leave NAME with neither a password nor another identity: \
                set a password first (`user passwd NAME`), or remove the user.
                """)
        @OptionGroup var library: LibraryOptions
        @Argument(help: "User name.") var name: String
        @Argument(help: "The provider's issuer URL.") var issuer: String
        @Argument(help: "The user's subject at that provider.") var subject: String
        func run() async throws {
            try await runReporting {
                let lib = try await library.open()
                let user = try await lib.user(named: name)
                let identities = try await lib.identities(of: user.id)
                let shown = "\(Terminal.printable(subject)) at \(Terminal.printable(issuer))"
                guard identities.contains(where: { $0.issuer == issuer && $0.subject == subject }) else {
                    throw CommandError("\(Terminal.printable(user.name)) has no identity \(shown) (feedctl user identities \(Terminal.printable(user.name)))")
                }
                guard user.hasPassword || identities.count > 1 else {
                    throw CommandError("\(shown) is \(Terminal.printable(user.name))'s only way to sign in (no password, no other identity): "
                                       + "set a password first (feedctl user passwd \(Terminal.printable(user.name)))")
                }
                try await lib.unlink(issuer: issuer, subject: subject)
                print("unlinked \(shown) from \(Terminal.printable(user.name))")
            }
        }
    }
}

/// `user list --json`: `{"id", "name", "admin", "owner", "has_password", "created_at"}`.
struct UserJSON: Encodable {
    let id: Int64, name: String, admin: Bool, owner: Bool, hasPassword: Bool, createdAt: Int64
    init(_ u: User) {
        id = u.id.rawValue; name = u.name; admin = u.isAdmin; owner = u.id == .owner; hasPassword = u.hasPassword; createdAt = u.createdAt
    }
    enum CodingKeys: String, CodingKey {
        case id, name, admin, owner, hasPassword = "has_password", createdAt = "created_at"
    }
}

/// `user sessions --json`: never the token or its hash.
struct SessionJSON: Encodable {
    let id: Int64, userID: Int64, user: String, device: String?, createdAt: Int64, expiresAt: Int64, lastUsedAt: Int64?, expired: Bool
    init(_ s: Session, user: String, now: Int64) {
        id = s.id; userID = s.userID.rawValue; self.user = user; device = s.deviceName; createdAt = s.createdAt
        expiresAt = s.expiresAt; lastUsedAt = s.lastUsedAt; expired = s.expiresAt <= now
    }
    enum CodingKeys: String, CodingKey {
        case id, userID = "user_id", user, device, createdAt = "created_at", expiresAt = "expires_at", lastUsedAt = "last_used_at", expired
    }
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id); try c.encode(userID, forKey: .userID); try c.encode(user, forKey: .user)
        try c.encode(device, forKey: .device); try c.encode(createdAt, forKey: .createdAt); try c.encode(expiresAt, forKey: .expiresAt)
        try c.encode(lastUsedAt, forKey: .lastUsedAt); try c.encode(expired, forKey: .expired)
    }
}
