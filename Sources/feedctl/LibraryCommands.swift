import ArgumentParser
import FeedModel
import FeedText
import CLISupport
import Foundation
import LibraryStore

extension FeedMode: ExpressibleByArgument {}
extension Platform: ExpressibleByArgument {}

struct FeedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "feed",
        abstract: "Show the feed: newest, catch-up (resume + what you missed) or short-form.")
    @OptionGroup var library: LibraryOptions
    @OptionGroup var output: OutputOptions
    @Option(help: "newest | catch-up | short-form") var mode: FeedMode = .newest
    @Option(help: "youtube | rumble | podcast") var platform: Platform?
    @Option(help: "Only this channel id.") var channel: Int64?
    @Flag(help: "Only items not marked watched.") var unwatched = false
    @Option(help: "Items per page.") var limit = 20
    @Option(help: "Page number, from 1.") var page = 1
    @Option(help: "Catch-up window in days.") var days = CatchUp.defaultDays

    func validate() throws {
        guard limit > 0 else { throw ValidationError("--limit must be at least 1") }
        guard page > 0 else { throw ValidationError("--page must be at least 1") }
        guard days > 0 else { throw ValidationError("--days must be at least 1") }
    }

    func run() async throws {
        try await runReporting {
            let query = FeedQuery(mode: mode, filter: FeedFilter(platform: platform, channelID: channel, unwatchedOnly: unwatched),
                                  limit: limit, page: page, days: days)
            let items = try await library.open().feed(query, now: Clock.now())
            if output.json { return try printJSON(items) }
            if items.isEmpty { print("nothing here"); return }
            items.forEach { print(ItemLine.format($0)) }
        }
    }
}

/// One item as a line of text: id, date, length/progress, state, channel, title.
enum ItemLine {
    static func format(_ item: LibraryItem) -> String {
        let date = item.published.map(Formats.day) ?? "          "
        var length = item.duration.map { Formats.clock(Double($0)) } ?? "-"
        if item.progress > 0 && !item.watched { length = Formats.clock(Double(item.progress)) + "/" + length }
        let mark = item.watched ? "✓" : (item.progress > 0 ? "▶" : " ")
        let short = item.isShort ? " [short]" : ""
        return Formats.pad(String(item.id), 6, right: true) + "  \(date)  " + Formats.pad(length, 11, right: true) + " \(mark) \(item.channel) — \(item.title)\(short)"
    }
}

struct ShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Show one library item.")
    @OptionGroup var library: LibraryOptions
    @OptionGroup var output: OutputOptions
    @Argument(help: "Item id.") var id: Int64

    func run() async throws {
        try await runReporting {
            let item = try await library.open().item(id: id)
            if output.json { return try printJSON(item) }
            print("\(item.id): \(item.title)")
            print("channel:   \(item.channel) [\(item.platform.rawValue)]")
            if let p = item.published { print("published: \(Formats.minute(p))") }
            if let d = item.duration { print("duration:  \(Formats.clock(Double(d)))") }
            print("state:     \(item.watched ? "watched" : item.progress > 0 ? "in progress at \(Formats.clock(Double(item.progress)))" : "unwatched")")
            if let url = item.url { print("url:       \(url)") }
            if let e = item.enclosureURL { print("media:     \(e)") }
        }
    }
}

struct WatchedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "watched", abstract: "Mark items watched (or not, with --undo).")
    @OptionGroup var library: LibraryOptions
    @Flag(help: "Mark as not watched.") var undo = false
    @Argument(help: "Item ids.") var ids: [Int64]

    func run() async throws {
        try await runReporting {
            try await library.open().setWatched(ids, watched: !undo, now: Clock.now())
            print("marked \(ids.count) item\(ids.count == 1 ? "" : "s") \(undo ? "unwatched" : "watched")")
        }
    }
}

struct ProgressCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "progress", abstract: "Set an item's playback progress.")
    @OptionGroup var library: LibraryOptions
    @Argument(help: "Item id.") var id: Int64
    @Argument(help: "Seconds (or MM:SS, H:MM:SS).") var position: String

    func run() async throws {
        try await runReporting {
            guard let seconds = DurationArgument.seconds(position).map({ Int($0.rounded()) }) else {
                throw ValidationError("not a position: \(position) (use seconds, MM:SS or H:MM:SS)")
            }
            try await library.open().setProgress(id, seconds: seconds, now: Clock.now())
            print("item \(id) at \(Formats.clock(Double(seconds)))")
        }
    }
}

struct SaveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "save", abstract: "Save items for later.")
    @OptionGroup var library: LibraryOptions
    @Argument(help: "Item ids.") var ids: [Int64]
    func run() async throws {
        try await runReporting {
            let lib = try library.open()
            for id in ids { try await lib.save(id, now: Clock.now()) }
            print("saved \(ids.map(String.init).joined(separator: ", "))")
        }
    }
}

struct UnsaveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "unsave", abstract: "Remove items from the saved list.")
    @OptionGroup var library: LibraryOptions
    @Argument(help: "Item ids.") var ids: [Int64]
    func run() async throws {
        try await runReporting {
            let lib = try library.open()
            for id in ids { try await lib.unsave(id) }
            print("unsaved \(ids.map(String.init).joined(separator: ", "))")
        }
    }
}

struct SavedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "saved", abstract: "List saved items.")
    @OptionGroup var library: LibraryOptions
    @OptionGroup var output: OutputOptions
    func run() async throws {
        try await runReporting {
            let items = try await library.open().saved()
            if output.json { return try printJSON(items) }
            if items.isEmpty { print("nothing saved"); return }
            items.forEach { print(ItemLine.format($0)) }
        }
    }
}

struct HistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "history", abstract: "What you played, newest first.")
    @OptionGroup var library: LibraryOptions
    @OptionGroup var output: OutputOptions
    @Option(help: "How many entries.") var limit = 50
    func run() async throws {
        try await runReporting {
            let entries = try await library.open().history(limit: limit)
            if output.json { return try printJSON(entries) }
            if entries.isEmpty { print("no history yet"); return }
            for e in entries {
                let item = e.item.map { String(format: "%6lld", $0) } ?? "     -"
                print("\(Formats.minute(e.playedAt))  \(item)  \(e.channel) — \(e.title)")
            }
        }
    }
}

struct CollectionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "collection",
        abstract: "Named, ordered collections of items.",
        subcommands: [Create.self, List.self, Show.self, Add.self, Remove.self, Move.self, Delete.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a collection.")
        @OptionGroup var library: LibraryOptions
        @Argument(help: "Name.") var name: String
        func run() async throws {
            try await runReporting { try await library.open().createCollection(name, now: Clock.now()); print("created \"\(name)\"") }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List collections.")
        @OptionGroup var library: LibraryOptions
        @OptionGroup var output: OutputOptions
        func run() async throws {
            try await runReporting {
                let all = try await library.open().collections()
                if output.json { return try printJSON(all) }
                if all.isEmpty { print("no collections yet: feedctl collection create NAME"); return }
                for c in all { print("\(c.name)  (\(c.items) item\(c.items == 1 ? "" : "s"))") }
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a collection's items in order.")
        @OptionGroup var library: LibraryOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "Name.") var name: String
        func run() async throws {
            try await runReporting {
                let items = try await library.open().collection(name)
                if output.json { return try printJSON(items) }
                if items.isEmpty { print("\"\(name)\" is empty"); return }
                items.forEach { print(ItemLine.format($0)) }
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add items to a collection (at its end).")
        @OptionGroup var library: LibraryOptions
        @Argument(help: "Name.") var name: String
        @Argument(help: "Item ids.") var ids: [Int64]
        func run() async throws {
            try await runReporting {
                let lib = try library.open()
                for id in ids { try await lib.addToCollection(item: id, collection: name, now: Clock.now()) }
                print("added \(ids.map(String.init).joined(separator: ", ")) to \"\(name)\"")
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove items from a collection.")
        @OptionGroup var library: LibraryOptions
        @Argument(help: "Name.") var name: String
        @Argument(help: "Item ids.") var ids: [Int64]
        func run() async throws {
            try await runReporting {
                let lib = try library.open()
                for id in ids { try await lib.removeFromCollection(item: id, collection: name) }
                print("removed \(ids.map(String.init).joined(separator: ", ")) from \"\(name)\"")
            }
        }
    }

    struct Move: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Move an item from one collection to another.")
        @OptionGroup var library: LibraryOptions
        @Argument(help: "Item id.") var id: Int64
        @Argument(help: "From collection.") var from: String
        @Argument(help: "To collection.") var to: String
        func run() async throws {
            try await runReporting {
                try await library.open().moveToCollection(item: id, from: from, to: to, now: Clock.now())
                print("moved \(id) from \"\(from)\" to \"\(to)\"")
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a collection (its items stay in the library).")
        @OptionGroup var library: LibraryOptions
        @Argument(help: "Name.") var name: String
        func run() async throws {
            try await runReporting { try await library.open().deleteCollection(name); print("deleted \"\(name)\"") }
        }
    }
}
