import ArgumentParser
import FeedModel
import FeedText
import CLISupport
import Downloads
import FeedParsing
import Foundation
import LibraryStore

extension FeedMode: ExpressibleByArgument {}
extension Platform: ExpressibleByArgument {}

struct FeedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "feed",
        abstract: "Show the feed: newest, catch-up (resume + what you missed), short-form or discovery (never-started items of the channels you play least).")
    @OptionGroup var library: LibraryOptions
    @OptionGroup var output: OutputOptions
    @Option(help: "newest | catch-up | short-form | discovery") var mode: FeedMode = .newest
    @Option(help: "youtube | rumble | podcast") var platform: Platform?
    @Option(help: "Only this channel id.", completion: .channelIDs) var channel: Int64?
    @Flag(help: "Only items not marked watched.") var unwatched = false
    @Option(help: "Items per page.") var limit = 20
    @Option(help: "Page number, from 1.") var page = 1
    @Option(help: "Catch-up window in days.") var days = CatchUp.defaultDays
    @Option(help: ArgumentHelp("Only items matching these words, best match first (as `feedctl search`).", valueName: "TEXT"))
    var search: String?

    func validate() throws {
        if search != nil && mode != .newest { throw ValidationError("--search ranks by relevance: it does not combine with --mode") }
        guard limit > 0 else { throw ValidationError("--limit must be at least 1") }
        guard page > 0 else { throw ValidationError("--page must be at least 1") }
        guard days > 0 else { throw ValidationError("--days must be at least 1") }
    }

    func run() async throws {
        try await runReporting {
            let filter = FeedFilter(platform: platform, channelID: channel, unwatchedOnly: unwatched)
            let lib = try await library.open()
            // A channel that does not exist is an error, not an empty feed.
            if let channel { _ = try await lib.channel(id: channel) }
            if let search {
                let found = try await lib.search(SearchQuery(text: search, filter: filter, page: try PageRequest(page: page, perPage: limit)))
                return try await SearchCommand.show(found, json: output.json)
            }
            let query = FeedQuery(mode: mode, filter: filter, page: try PageRequest(page: page, perPage: limit), days: days)
            let now = Clock.now()
            let items = try await lib.feed(query, now: now)
            if output.json { return try printJSON(items) }
            if items.isEmpty { print("nothing here"); return }
            items.forEach { print(ItemLine.format($0)) }
            // A person at a terminal learns that the list goes on; a script reads the pages it asks for.
            if stdoutIsTTY, items.count == limit, let more = PageHint.line(query.page, total: try await lib.feedTotal(query, now: now)) {
                print(more)
            }
        }
    }
}

/// `page 1 of 4: --page 2 for more`, when a page was full and more follow it (whether they do is
/// `PageRequest`'s rule, overflow included).
enum PageHint {
    static func line(_ page: PageRequest, total: Int) -> String? {
        guard page.hasMore(shown: page.perPage, total: total) else { return nil }
        let pages = total / page.perPage + (total % page.perPage == 0 ? 0 : 1)
        return "page \(page.page) of \(pages): --page \(page.page + 1) for more"
    }
}

/// One item as a line of text: id, date, length/progress, state, channel, title.
enum ItemLine {
    /// Cut to the terminal's width (when stdout is one); feed text shown without control characters.
    static func format(_ item: LibraryItem, width: Int? = Terminal.width) -> String {
        let date = item.published.map(Formats.day) ?? "          "
        var length = item.duration.map { Formats.clock(Double($0)) } ?? "-"
        if item.progress > 0 && !item.watched { length = Formats.clock(Double(item.progress)) + "/" + length }
        let mark = item.watched ? "✓" : (item.progress > 0 ? "▶" : " ")
        let short = item.isShort ? " [short]" : ""
        return Terminal.fit(Formats.pad(String(item.id), 6, right: true) + "  \(date)  " + Formats.pad(length, 11, right: true)
                            + " \(mark) \(Terminal.printable(item.channel)) — \(Terminal.printable(item.title))\(short)", width: width)
    }
}

struct ShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Show one library item: its show notes, links and download state.")
    @OptionGroup var library: LibraryOptions
    @OptionGroup var media: MediaOptions
    @OptionGroup var output: OutputOptions
    @Argument(help: "Item id.", completion: .itemIDs) var id: Int64

    func run() async throws {
        try await runReporting {
            let downloads = DownloadStore(directory: try media.directory(for: library))
            let lib = try await library.open()
            let details = try await lib.itemDetails(id: id)
            if output.json { return try printJSON(ItemDetailsJSON(details)) }
            let item = details.item
            let p = Terminal.printable
            print("\(item.id): \(p(item.title))")
            print("channel:    \(p(item.channel)) [\(item.platform.rawValue)]")
            if let author = details.author, author != item.channel { print("by:         \(p(author))") }
            if let season = details.season, let episode = details.episode { print("episode:    season \(season), episode \(episode)") }
            else if let episode = details.episode { print("episode:    \(episode)") }
            if let type = details.episodeType { print("type:       \(p(type))") }
            if let explicit = details.explicit { print("explicit:   \(explicit ? "yes" : "no")") }
            if let live = details.liveStatus { print("live:       \(p(live))") }
            if let p = item.published { print("published:  \(Formats.minute(p))") }
            if let d = item.duration { print("duration:   \(Formats.clock(Double(d)))") }
            print("state:      \(item.watched ? "watched" : item.progress > 0 ? "in progress at \(Formats.clock(Double(item.progress)))" : "unwatched")")
            if let url = item.url { print("page:       \(p(url))") }
            if let e = item.enclosureURL { print("media:      \(p(e))") }
            if let c = details.chaptersURL { print("chapters:   \(p(c))") }
            if let t = details.transcriptURL { print("transcript: \(p(t))") }
            for person in details.persons {
                let role = person.role.map { " (\(p($0)))" } ?? ""
                print("person:     \(p(person.name))\(role)\(person.href.map { "  \(p($0))" } ?? "")")
            }
            for link in details.funding { print("funding:    \(p(link.url))\(link.title.map { "  \(p($0))" } ?? "")") }
            if item.enclosureURL != nil { print("download:   \(try await Self.downloadState(details, lib, downloads))") }
            if let notes = details.notes, !notes.isEmpty {
                print("")
                TextWrap.lines(notes, width: TextWrap.terminalWidth()).forEach { print(p($0)) }
            }
        }
    }

    /// "file (size)", "partial: N of M", or "not downloaded".
    private static func downloadState(_ details: ItemDetails, _ lib: any DownloadCatalog, _ store: DownloadStore) async throws -> String {
        if let item = try await lib.downloadItems(ids: [details.item.id]).first { try store.adopt(item) }
        let files = try store.entries(item: details.item.id)
        if let done = files.first(where: \.complete) { return "\(done.path) (\(Formats.bytes(done.bytes)))" }
        if let part = files.first {
            let total = details.enclosureLength.map { " of about \(Formats.bytes($0))" } ?? ""
            return "partial, \(Formats.bytes(part.bytes))\(total) (feedctl download \(details.item.id) resumes it)"
        }
        return "not downloaded"
    }
}

/// `show ID --json`: the item as listings print it, and what only `show` has: the item's
/// `itunes:explicit`, episode type, live status, persons, funding, and the show notes as
/// sanitized HTML (`notes_html`: the stored markup through `NotesSanitizer`, here; null when
/// they hold no markup worth keeping).
struct ItemDetailsJSON: Encodable {
    let details: ItemDetails
    init(_ details: ItemDetails) { self.details = details }

    func encode(to encoder: any Encoder) throws {
        try details.item.encode(to: encoder)
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(details.explicit, forKey: .explicit)
        try c.encode(details.episodeType, forKey: .episodeType)
        try c.encode(details.liveStatus, forKey: .liveStatus)
        try c.encode(details.persons, forKey: .persons)
        try c.encode(details.funding, forKey: .funding)
        try c.encode(details.storedNotes.flatMap { NotesSanitizer.sanitize($0.markup, base: $0.base) }, forKey: .notesHTML)
    }

    enum Key: String, CodingKey {
        case explicit, episodeType = "episode_type", liveStatus = "live_status", persons, funding, notesHTML = "notes_html"
    }
}

/// Plain text folded to a width, for reading in a terminal.
enum TextWrap {
    /// The terminal's columns when stdout is one, else `$COLUMNS`, else 80.
    static func terminalWidth() -> Int {
        // Show notes are wrapped when piped too: then $COLUMNS, else 80.
        if let width = Terminal.width { return width }
        if let columns = ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init), columns > 0 { return columns }
        return 80
    }

    /// Each paragraph (kept where the text breaks lines) folded at spaces to at most `width`
    /// characters; a word longer than the width (a URL) gets a line of its own, uncut.
    static func lines(_ text: String, width: Int) -> [String] {
        let width = max(width, 20)
        var out: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            for word in paragraph.split(whereSeparator: { $0 == " " || $0 == "\t" }) {
                if line.isEmpty {
                    line = String(word)
                } else if line.count + 1 + word.count <= width {
                    line += " " + word
                } else {
                    out.append(line)
                    line = String(word)
                }
            }
            out.append(line)
        }
        while out.last?.isEmpty == true { out.removeLast() }
        return out
    }
}

struct WatchedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watched",
        abstract: "Mark items watched (or not, with --undo), or a channel's backlog with --channel.")
    @OptionGroup var library: LibraryOptions
    @Flag(help: "Mark as not watched.") var undo = false
    @Option(help: "Mark this channel's items watched.") var channel: Int64?
    @Option(help: ArgumentHelp("With --channel: only items published before this day (local time).", valueName: "YYYY-MM-DD"))
    var before: String?
    @Argument(help: "Item ids.", completion: .itemIDs) var ids: [Int64] = []

    func validate() throws {
        if channel == nil && ids.isEmpty { throw ValidationError("give item ids, or --channel ID") }
        if channel != nil && !ids.isEmpty { throw ValidationError("give either item ids or --channel ID, not both") }
        if before != nil && channel == nil { throw ValidationError("--before only goes with --channel ID") }
        if undo && channel != nil { throw ValidationError("--undo takes item ids, not --channel") }
        if let before, LocalDay.start(before) == nil { throw ValidationError("not a date: \(before) (use YYYY-MM-DD)") }
    }

    func run() async throws {
        try await runReporting {
            let lib = try await library.open()
            if let channel {
                let cutoff = before.flatMap(LocalDay.start)
                let count = try await lib.setWatched(channelID: channel, publishedBefore: cutoff, now: Clock.now())
                let scope = before.map { " published before \($0)" } ?? ""
                print("marked \(Formats.count(count, "item")) of channel \(channel)\(scope) watched")
                return
            }
            // All or nothing: a bad id changes nothing and is named.
            let changed = try await lib.setWatched(ids, watched: !undo, now: Clock.now())
            let already = ItemIDs.unique(ids).filter { !changed.contains($0) }
            let state = undo ? "unwatched" : "watched"
            var line = "marked \(Formats.count(changed.count, "item")) \(state)" + (changed.isEmpty ? "" : ": \(ItemIDs.list(changed))")
            if !already.isEmpty { line += " (already \(state): \(ItemIDs.list(already)))" }
            print(line)
        }
    }
}

/// How the multi-id commands print the ids they applied.
enum ItemIDs {
    static func unique(_ ids: [Int64]) -> [Int64] {
        var seen = Set<Int64>()
        return ids.filter { seen.insert($0).inserted }
    }

    static func list(_ ids: [Int64]) -> String { unique(ids).map(String.init).joined(separator: ", ") }
}

/// `--before YYYY-MM-DD`: the start of that day in the user's time zone (as the feed prints days).
enum LocalDay {
    static func start(_ text: String) -> Int64? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let year = Int32(parts[0]), let month = Int32(parts[1]), let day = Int32(parts[2]),
              (1...12).contains(month), (1...31).contains(day) else { return nil }
        var t = tm()
        t.tm_year = year - 1900; t.tm_mon = month - 1; t.tm_mday = day; t.tm_isdst = -1
        let seconds = mktime(&t)
        // mktime normalizes 2026-02-31 to March: such a day does not exist.
        guard seconds != -1, t.tm_mday == day, t.tm_mon == month - 1 else { return nil }
        return Int64(seconds)
    }
}

struct ProgressCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "progress", abstract: "Set an item's playback progress.")
    @OptionGroup var library: LibraryOptions
    @Argument(help: "Item id.", completion: .itemIDs) var id: Int64
    @Argument(help: "Seconds (or MM:SS, H:MM:SS).") var position: String

    func run() async throws {
        try await runReporting {
            guard let seconds = DurationArgument.seconds(position).map({ Int($0.rounded()) }) else {
                throw ValidationError("not a position: \(position) (use seconds, MM:SS or H:MM:SS)")
            }
            let lib = try await library.open()
            let item = try await lib.item(id: id)
            if let length = item.duration, seconds > length {
                throw CommandError("item \(id) is \(Formats.clock(Double(length))) long: \(position) is past its end")
            }
            let state = try await lib.setProgress(id, seconds: seconds, now: Clock.now())
            let heard = state == .watched && !item.watched ? " (near enough its end to count as heard: marked watched)" : ""
            print("item \(id) at \(Formats.clock(Double(seconds)))\(heard)")
        }
    }
}

struct SaveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "save", abstract: "Save items for later (all or none).")
    @OptionGroup var library: LibraryOptions
    @Argument(help: "Item ids.", completion: .itemIDs) var ids: [Int64]
    func run() async throws {
        try await runReporting {
            let new = try await library.open().save(ids, now: Clock.now())
            let already = ItemIDs.unique(ids).filter { !new.contains($0) }
            var line = "saved \(Formats.count(new.count, "item"))" + (new.isEmpty ? "" : ": \(ItemIDs.list(new))")
            if !already.isEmpty { line += " (already saved: \(ItemIDs.list(already)))" }
            print(line)
        }
    }
}

struct UnsaveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "unsave", abstract: "Remove items from the saved list (all or none).")
    @OptionGroup var library: LibraryOptions
    @Argument(help: "Item ids.", completion: .itemIDs) var ids: [Int64]
    func run() async throws {
        try await runReporting {
            let gone = try await library.open().unsave(ids)
            let notSaved = ItemIDs.unique(ids).filter { !gone.contains($0) }
            var line = "unsaved \(Formats.count(gone.count, "item"))" + (gone.isEmpty ? "" : ": \(ItemIDs.list(gone))")
            if !notSaved.isEmpty { line += " (not saved: \(ItemIDs.list(notSaved)))" }
            print(line)
        }
    }
}

struct SavedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "saved", abstract: "List saved items, then saved pages the library does not hold.",
        discussion: "Pages are videos saved from a search (discover --save N) or by the app; --pages lists only them.")
    @OptionGroup var library: LibraryOptions
    @OptionGroup var output: OutputOptions
    @Flag(help: "Only the saved pages the library does not hold (with --json: their own shape).") var pages = false

    func run() async throws {
        try await runReporting {
            let lib = try await library.open()
            let items = pages ? [] : try await lib.saved()
            if output.json && !pages { return try printJSON(items) }
            let saved = try await Self.pages(of: lib)
            if output.json { return try printJSON(saved.map(SavedPageJSON.init)) }
            if items.isEmpty && saved.isEmpty { print(pages ? "no saved pages" : "nothing saved"); return }
            items.forEach { print(ItemLine.format($0)) }
            for video in saved {
                let page = video.page
                let channel = page.channelName.map { " — " + Terminal.printable($0) } ?? ""
                print(Terminal.fit("  page \(video.id)  [\(page.platform)] \(Terminal.printable(page.title))\(channel)  \(page.videoURL)",
                                   width: Terminal.width))
            }
        }
    }

    /// Every saved page outside the library, most recently saved first.
    static func pages(of library: some SavedVideoStore) async throws -> [SavedVideo] {
        var pages: [SavedVideo] = []
        var offset = 0
        while true {
            let (videos, total) = try await library.savedVideos(SavedVideoQuery(limit: 500, offset: offset))
            pages += videos.filter { $0.itemID == nil }
            offset += videos.count
            if videos.isEmpty || offset >= total { return pages }
        }
    }
}

/// `saved --pages --json`: a page saved outside the library.
struct SavedPageJSON: Encodable {
    var id: Int64
    var platform: String
    var videoID: String
    var url: String
    var title: String
    var channel: String?
    var savedAt: Int64
    init(_ video: SavedVideo) {
        id = video.id; platform = video.page.platform; videoID = video.page.videoID; url = video.page.videoURL
        title = video.page.title; channel = video.page.channelName; savedAt = video.savedAt
    }
    enum CodingKeys: String, CodingKey { case id, platform, videoID = "video_id", url, title, channel, savedAt = "saved_at" }
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
                print(Terminal.fit("\(Formats.minute(e.playedAt))  \(item)  \(Terminal.printable(e.channel)) — \(Terminal.printable(e.title))",
                                   width: Terminal.width))
            }
        }
    }
}

struct CollectionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "collection",
        abstract: "Named, ordered collections of items.",
        subcommands: [Create.self, List.self, Show.self, Add.self, Remove.self, Copy.self, Move.self, Targets.self, Delete.self,
                      Publish.self, Unpublish.self])

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
                for c in all { print("\(c.name)  (\(Formats.count(c.items, "item")))") }
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
        static let configuration = CommandConfiguration(abstract: "Add items to a collection (at its end; all or none).")
        @OptionGroup var library: LibraryOptions
        @Argument(help: "Name.") var name: String
        @Argument(help: "Item ids.", completion: .itemIDs) var ids: [Int64]
        func run() async throws {
            try await runReporting {
                try await library.open().addToCollection(items: ids, collection: name, now: Clock.now())
                print("added \(Formats.count(ItemIDs.unique(ids).count, "item")) to \"\(name)\": \(ItemIDs.list(ids))")
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove items from a collection (all or none).")
        @OptionGroup var library: LibraryOptions
        @Argument(help: "Name.") var name: String
        @Argument(help: "Item ids.", completion: .itemIDs) var ids: [Int64]
        func run() async throws {
            try await runReporting {
                try await library.open().removeFromCollection(items: ids, collection: name)
                print("removed \(Formats.count(ItemIDs.unique(ids).count, "item")) from \"\(name)\": \(ItemIDs.list(ids))")
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
