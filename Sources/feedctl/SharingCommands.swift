import ArgumentParser
import CLISupport
import FeedIngest
import FeedModel
import Foundation
import LibraryStore
import UserConfig

// Publishing collections and following published ones (issue 29): `collection publish|unpublish
// NAME`, `follow URL`, `followed [ID]`, `unfollow ID`. The links are `feedctl serve`'s; whole
// URLs under the config file's `server.public_url`, else paths on that server.

extension CollectionCommand {
    struct Publish: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Publish a collection: print its page, RSS and JSON links (anyone with them reads it; a published one keeps its links).")
        @OptionGroup var library: LibraryOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "Name.") var name: String
        func run() async throws {
            try await runReporting {
                // Read first: a broken config file publishes nothing.
                let base = try Config.load(path: Config.defaultPath()).publicURL
                let lib = try await library.open()
                let id = try await Self.collectionID(named: name, in: lib)
                let link = try await lib.publishCollection(id: id, token: .random(), now: Clock.now())
                let links = ShareLinks(link.token, base: base)
                if output.json { return try printJSON(links) }
                print("published \"\(Terminal.printable(name))\":")
                print("  page  \(links.url)\n  rss   \(links.rssURL)\n  json  \(links.jsonURL)")
                if base == nil {
                    printError("these are paths on your feedctl serve; for whole links set its address: "
                               + "feedctl config set server.public_url https://…")
                }
            }
        }

        /// The owner's collection named `name`.
        static func collectionID(named name: String, in lib: some CollectionStore) async throws(LibraryError) -> Int64 {
            guard let found = try await lib.collectionDetails().first(where: { $0.name == name }) else { throw .noCollection(name) }
            return found.id
        }
    }

    struct Unpublish: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Withdraw a collection's links for good (they answer 410; publishing again makes new ones).")
        @OptionGroup var library: LibraryOptions
        @Argument(help: "Name.") var name: String
        func run() async throws {
            try await runReporting {
                let lib = try await library.open()
                do throws(LibraryError) {
                    try await lib.unpublishCollection(id: try await Publish.collectionID(named: name, in: lib), now: Clock.now())
                } catch .notPublished {
                    throw CommandError("\"\(Terminal.printable(name))\" is not published (feedctl collection publish NAME publishes it)")
                }
                print("unpublished \"\(Terminal.printable(name))\": its links answer 410 Gone from now on")
            }
        }
    }
}

struct FollowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "follow",
        abstract: "Follow a published collection by its link (this library's, or another feedctl server's).",
        discussion: "Another server's collection is read now, then again at each sync; this library's is read live. "
            + "feedctl followed lists them, apart from your own collections.")
    @OptionGroup var library: LibraryOptions
    @Argument(help: "The collection's link: …/shared/TOKEN, its RSS or its JSON.") var url: String
    func run() async throws {
        try await runReporting {
            let link: SharedCollectionLink
            switch SharedCollectionLink.parse(url) {
            case .success(let parsed): link = parsed
            case .failure(let error): throw CommandError(error.description)
            }
            // Following may be the first thing a library holds, as a subscription may.
            let lib = try await library.open(creating: true)
            let followed: FollowedCollection
            do {
                followed = try await CollectionFollower(store: lib, reach: .anyAddress).follow(link, now: Clock.now())
            } catch let error as FollowError {
                throw CommandError(error.description)
            }
            print("following \(followed.id) \(FollowedLine.describe(followed))")
        }
    }
}

struct FollowedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "followed",
        abstract: "List the collections you follow (withdrawn ones marked), or one's items.")
    @OptionGroup var library: LibraryOptions
    @OptionGroup var output: OutputOptions
    @Argument(help: "A followed collection's id: list its items.") var id: Int64?
    func run() async throws {
        try await runReporting {
            let lib = try await library.open()
            if let id {
                let (followed, items) = try await lib.followedCollection(id: id)
                if output.json { return try printJSON(FollowedJSON(followed, items: items)) }
                print("\(followed.id) \(FollowedLine.describe(followed))")
                for (index, item) in items.enumerated() {
                    let facts = [item.channelName, item.duration.map { Formats.clock(Double($0)) }].compactMap { $0 }
                    print("  \(index + 1). \(Terminal.printable(item.title))  (\(Terminal.printable(facts.joined(separator: ", "))))"
                          + (item.enclosureURL.map { "  \(Terminal.printable($0))" } ?? ""))
                }
                return
            }
            let all = try await lib.followedCollections()
            if output.json { return try printJSON(all.map { FollowedJSON($0, items: nil) }) }
            if all.isEmpty { print("you follow no collection yet: feedctl follow URL"); return }
            for followed in all { print("\(followed.id)  \(FollowedLine.describe(followed))") }
        }
    }
}

struct UnfollowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "unfollow", abstract: "Stop following a collection (feedctl followed lists their ids).")
    @OptionGroup var library: LibraryOptions
    @Argument(help: "The followed collection's id.") var id: Int64
    func run() async throws {
        try await runReporting {
            let lib = try await library.open()
            let (followed, _) = try await lib.followedCollection(id: id)
            try await lib.unfollow(id: id)
            print("stopped following \(id) \"\(Terminal.printable(followed.name))\"")
        }
    }
}

/// A followed collection in one line: `"Road trip" by alice, 3 items` and what to know of it
/// (withdrawn; another server's, and its last error).
enum FollowedLine {
    static func describe(_ followed: FollowedCollection) -> String {
        var line = "\"\(Terminal.printable(followed.name))\" by \(Terminal.printable(followed.ownerName))"
        if followed.isWithdrawn { return line + "  [withdrawn by its owner]" }
        line += ", \(Formats.count(followed.itemCount, "item"))"
        if let source = followed.sourceURL, let host = URLComponents(string: source)?.host {
            line += " (on \(Terminal.printable(host)))"
        }
        if let error = followed.lastError { line += "  [last read failed: \(Terminal.printable(error))]" }
        return line
    }
}

/// `followed --json` (docs/cli.md): dates as Unix seconds, as the CLI's contracts have them.
struct FollowedJSON: Encodable {
    var id: Int64
    var url: String
    var name: String
    @Nullable var description: String?
    var ownerName: String
    var itemCount: Int
    var remote: Bool
    @Nullable var sourceURL: String?
    var withdrawn: Bool
    @Nullable var withdrawnAt: Int64?
    var followedAt: Int64
    @Nullable var refreshedAt: Int64?
    @Nullable var lastError: String?
    var items: [Item]?

    struct Item: Encodable {
        var title: String
        var channel: String
        @Nullable var published: Int64?
        @Nullable var duration: Int?
        @Nullable var enclosureURL: String?
        @Nullable var url: String?
        enum CodingKeys: String, CodingKey { case title, channel, published, duration, enclosureURL = "enclosure_url", url }
    }

    init(_ followed: FollowedCollection, items: [SharedItem]?) {
        id = followed.id; url = followed.url; name = followed.name; description = followed.description; ownerName = followed.ownerName
        itemCount = followed.itemCount; remote = followed.isRemote; sourceURL = followed.sourceURL; withdrawn = followed.isWithdrawn
        withdrawnAt = followed.withdrawnAt; followedAt = followed.followedAt; refreshedAt = followed.refreshedAt; lastError = followed.lastError
        self.items = items?.map {
            Item(title: $0.title, channel: $0.channelName, published: $0.published, duration: $0.duration, enclosureURL: $0.enclosureURL, url: $0.url)
        }
    }

    enum CodingKeys: String, CodingKey {
        case id, url, name, description, ownerName = "owner_name", itemCount = "item_count", remote, sourceURL = "source_url"
        case withdrawn, withdrawnAt = "withdrawn_at", followedAt = "followed_at", refreshedAt = "refreshed_at", lastError = "last_error", items
    }
}
