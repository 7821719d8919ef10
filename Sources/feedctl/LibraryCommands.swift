import ArgumentParser
import FeedIngest
import Foundation

/// Options every library command shares.
struct LibraryOptions: ParsableArguments {
    @Option(help: "The library database (default: $FEEDCTL_DB, else $XDG_DATA_HOME/feedctl/library.sqlite).")
    var db: String?

    @Flag(help: "Print JSON (the documented contract) instead of text.")
    var json = false

    func open() throws -> Library {
        try Library(path: db ?? Library.defaultPath(environment: ProcessInfo.processInfo.environment))
    }

    func printJSON(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    func printItems(_ items: [LibraryItem]) throws {
        if json { return try printJSON(items) }
        for item in items { print(Self.line(item)) }
    }

    /// `42  2026-10-14  1:02:03  Channel — Title  [watched]`
    static func line(_ item: LibraryItem) -> String {
        let date = item.published.map { day(for: $0) } ?? "????-??-??"
        let duration = item.duration.map(clock) ?? "-"
        var mark = item.watched ? "  [watched]" : item.progress > 0 ? "  [at \(clock(item.progress))]" : ""
        if item.isShort { mark += "  [short]" }
        return "\(item.id)\t\(date)  \(duration)\t\(item.channel) — \(item.title)\(mark)"
    }

    static func day(for time: Int64) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(time)))
    }

    static func clock(_ seconds: Int) -> String {
        let h = seconds / 3600, m = seconds % 3600 / 60, s = seconds % 60
        return h > 0 ? String(format: "%d:%02d:%02d", h, m, s) : String(format: "%d:%02d", m, s)
    }
}

func unixNow() -> Int64 { Int64(Date().timeIntervalSince1970) }

extension FeedMode: ExpressibleByArgument {}
extension Platform: ExpressibleByArgument {}

struct FeedCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "feed", abstract: "Show the feed: newest, catch-up or short-form.")
    @OptionGroup var options: LibraryOptions
    @Option(help: "newest, catch-up or short-form.") var mode: FeedMode = .newest
    @Option(help: "Only youtube, rumble or podcast items.") var platform: Platform?
    @Option(help: "Only this channel's items.") var channel: Int64?
    @Flag(help: "Only items not marked watched.") var unwatched = false
    @Option(help: "Items per page.") var limit = 50
    @Option(help: "Page number, from 1.") var page = 1
    @Option(help: "Catch-up's window in days.") var days = 14

    func run() throws {
        let items = try options.open().feed(mode: mode, filter: FeedFilter(platform: platform, channelID: channel, unwatchedOnly: unwatched),
                                            limit: limit, page: page, days: days, now: unixNow())
        try options.printItems(items)
    }
}

struct ShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Show one item.")
    @OptionGroup var options: LibraryOptions
    @Argument(help: "The item's id.") var id: Int64

    func run() throws {
        let item = try options.open().item(id: id)
        if options.json { return try options.printJSON(item) }
        print(LibraryOptions.line(item))
        if let url = item.url { print("url: \(url)") }
        if let enclosure = item.enclosureURL { print("audio: \(enclosure)") }
    }
}

struct WatchedCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "watched", abstract: "Mark items watched (or unwatched with --undo).")
    @OptionGroup var options: LibraryOptions
    @Flag(help: "Mark them unwatched again.") var undo = false
    @Argument(help: "Item ids.") var ids: [Int64]

    func validate() throws { if ids.isEmpty { throw ValidationError("give at least one item id") } }
    func run() throws { try options.open().setWatched(ids, watched: !undo, now: unixNow()) }
}

struct ProgressCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "progress", abstract: "Record how far an item has been played.")
    @OptionGroup var options: LibraryOptions
    @Argument(help: "The item's id.") var id: Int64
    @Argument(help: "Seconds played.") var seconds: Int

    func run() throws { try options.open().setProgress(id, seconds: seconds, now: unixNow()) }
}

struct SaveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "save", abstract: "Save an item for later.")
    @OptionGroup var options: LibraryOptions
    @Argument(help: "The item's id.") var id: Int64
    func run() throws { try options.open().save(id, now: unixNow()) }
}

struct UnsaveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "unsave", abstract: "Unsave an item.")
    @OptionGroup var options: LibraryOptions
    @Argument(help: "The item's id.") var id: Int64
    func run() throws { try options.open().unsave(id) }
}

struct SavedCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "saved", abstract: "List saved items, most recent first.")
    @OptionGroup var options: LibraryOptions
    func run() throws { try options.printItems(try options.open().saved()) }
}

struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "history", abstract: "List what was played, newest first.")
    @OptionGroup var options: LibraryOptions
    @Option(help: "How many entries.") var limit = 50

    func run() throws {
        let entries = try options.open().history(limit: limit)
        if options.json { return try options.printJSON(entries) }
        for e in entries {
            print("\(LibraryOptions.day(for: e.playedAt))\t\(e.channel) — \(e.title)\(e.item == nil ? "  [removed]" : "")")
        }
    }
}

struct CollectionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "collection", abstract: "Named, ordered lists of items.",
        subcommands: [Create.self, List.self, Show.self, Add.self, Remove.self, Move.self, Delete.self])

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a collection.")
        @OptionGroup var options: LibraryOptions
        @Argument var name: String
        func run() throws { try options.open().createCollection(name, now: unixNow()) }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List collections.")
        @OptionGroup var options: LibraryOptions
        func run() throws {
            let collections = try options.open().collections()
            if options.json { return try options.printJSON(collections) }
            for c in collections { print("\(c.name)\t\(c.items) item\(c.items == 1 ? "" : "s")") }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a collection's items in order.")
        @OptionGroup var options: LibraryOptions
        @Argument var name: String
        func run() throws { try options.printItems(try options.open().collection(name)) }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Append items to a collection.")
        @OptionGroup var options: LibraryOptions
        @Argument var name: String
        @Argument(help: "Item ids.") var ids: [Int64]
        func run() throws {
            let library = try options.open()
            for id in ids { try library.addToCollection(item: id, collection: name, now: unixNow()) }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove items from a collection.")
        @OptionGroup var options: LibraryOptions
        @Argument var name: String
        @Argument(help: "Item ids.") var ids: [Int64]
        func run() throws {
            let library = try options.open()
            for id in ids { try library.removeFromCollection(item: id, collection: name) }
        }
    }

    struct Move: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Move an item from one collection to the end of another.")
        @OptionGroup var options: LibraryOptions
        @Argument(help: "The item's id.") var id: Int64
        @Argument var from: String
        @Argument var to: String
        func run() throws { try options.open().moveToCollection(item: id, from: from, to: to, now: unixNow()) }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a collection (its items stay in the library).")
        @OptionGroup var options: LibraryOptions
        @Argument var name: String
        func run() throws { try options.open().deleteCollection(name) }
    }
}
