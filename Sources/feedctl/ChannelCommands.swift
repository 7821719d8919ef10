import ArgumentParser
import FeedIngest
import FeedModel
import FeedParsing
import FeedText
import CLISupport
import Downloads
import Foundation
import LibraryStore

struct ChannelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "channel",
        abstract: "Manage subscriptions (podcast feeds, YouTube and Rumble channels).",
        subcommands: [Add.self, List.self, Show.self, Remove.self, Import.self, Export.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Subscribe to feeds or channels: a podcast RSS/Atom URL, any YouTube channel/handle/video/playlist URL, a Rumble channel URL.")
        @OptionGroup var library: LibraryOptions
        @OptionGroup var output: OutputOptions
        @Flag(help: "For a YouTube channel, also subscribe its Shorts feed.") var shorts = false
        @Argument(help: "URLs to subscribe to.") var urls: [String]

        func run() async throws {
            try await runReporting {
                let subscriber = Subscriber(syncer: Syncer(store: try await library.open(creating: true), reach: .anyAddress))
                var added: [AddedChannelJSON] = []
                var failures = 0
                for url in urls {
                    do {
                        for entry in try await subscriber.add(url, includeShorts: shorts) {
                            added.append(AddedChannelJSON(entry))
                            if !output.json {
                                let verb = entry.alreadySubscribed ? "already subscribed" : "added"
                                print("\(verb) \(entry.channel.id): \(Terminal.printable(entry.channel.name)) [\(entry.channel.platform.rawValue)] — \(Formats.count(entry.newItems, "new item"))")
                                // A broken feed says so at once, not only when someone looks.
                                let warnings = entry.channel.warnings.count
                                if warnings > 0 {
                                    print("  the feed has \(Formats.count(warnings, "warning")): feedctl channel show \(entry.channel.id)")
                                }
                            }
                        }
                    } catch {
                        failures += 1
                        printError(String(describing: error))
                    }
                }
                if output.json { try printJSON(added) }
                if failures > 0 { throw ExitCode(1) }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List subscribed channels.")
        @OptionGroup var library: LibraryOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            try await runReporting {
                let channels = try await library.open().channelSummaries()
                if output.json { return try printJSON(channels) }
                if channels.isEmpty { print("no channels yet: feedctl channel add URL"); return }
                let width = Terminal.width
                for c in channels {
                    var error = c.lastError.map { "  ! \(Terminal.printable($0))" } ?? ""
                    if !c.warnings.isEmpty { error += "  (feed has \(Formats.count(c.warnings.count, "warning")): feedctl channel show \(c.id))" }
                    print(Terminal.fit(Formats.pad(String(c.id), 4, right: true) + "  " + Formats.pad(c.platform.rawValue, 8)
                                       + Formats.pad(String(c.items), 6, right: true) + " items " + Formats.pad(String(c.unwatched), 5, right: true)
                                       + " unwatched  " + Terminal.printable(c.name) + error, width: width))
                }
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one channel.")
        @OptionGroup var library: LibraryOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "Channel id.", completion: .channelIDs) var id: Int64

        func run() async throws {
            try await runReporting {
                let c = try await library.open().channelSummary(id: id)
                if output.json { return try printJSON(c) }
                print("\(c.id): \(Terminal.printable(c.name)) [\(c.platform.rawValue)]")
                print("url:         \(Terminal.printable(c.url))")
                print("feed:        \(Terminal.printable(c.feedURL))")
                print("items:       \(c.items) (\(c.unwatched) unwatched)")
                print("last synced: \(c.lastSynced.map(Formats.minute) ?? "never")")
                print("next poll:   \(c.nextPoll.map(Formats.minute) ?? "-")")
                if let e = c.lastError { print("last error:  \(Terminal.printable(e))") }
                if let u = c.selfURL, u != c.feedURL { print("self url:    \(Terminal.printable(u))") }
                if let u = c.nextPage { print("next page:   \(Terminal.printable(u))") }
                for link in c.funding {
                    print("funding:     \(Terminal.printable(link.url))\(link.title.map { "  \(Terminal.printable($0))" } ?? "")")
                }
                if !c.warnings.isEmpty {
                    print("warnings:    the feed's last parse recovered from:")
                    c.warnings.forEach { print("  \(Terminal.printable($0))") }
                }
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Unsubscribe: removes the channel, its items and their downloads; play history and collections stay.")
        @OptionGroup var library: LibraryOptions
        @OptionGroup var media: MediaOptions
        @Flag(help: "Keep the channel's downloaded files.") var keepDownloads = false
        @Argument(help: "Channel ids.", completion: .channelIDs) var ids: [Int64]

        func run() async throws {
            try await runReporting {
                let store = DownloadStore(directory: try media.directory(for: library))
                let lib = try await library.open()
                // Every id is checked first: a typo removes nothing.
                var channels: [Channel] = []
                for id in Array(Set(ids)).sorted() { channels.append(try await lib.channel(id: id)) }
                if !keepDownloads { try await store.adoptLegacy(in: lib) }
                var failures = 0
                for channel in channels {
                    var items = try await lib.itemIDs(channelID: channel.id)
                    let removal = try await lib.removeChannel(id: channel.id)
                    var line = "removed \(channel.id): \(channel.name) (\(Formats.count(items.count, "item"))"
                    if case .keptInCollections(let kept) = removal {
                        // A collection's items stay, and so do their downloads.
                        line += "; \(Formats.count(kept.count, "item")) in collections stay"
                        let stay = Set(kept)
                        items.removeAll { stay.contains($0) }
                    }
                    if removal == .othersStillFollow {
                        // Shared with other users of the library: their items and downloads stay.
                        line += "; other users still follow it, so its items and downloads stay"
                    } else if !keepDownloads {
                        // After the library let go of them: a failed removal must not cost the files.
                        let (removed, errors) = store.remove(items: items)
                        errors.forEach { printError($0.description) }
                        failures += errors.count
                        if !removed.isEmpty {
                            let freed = removed.reduce(Int64(0)) { $0 + $1.bytes }
                            line += "; deleted \(Formats.count(removed.count, "downloaded file")), \(Formats.bytes(freed)) freed"
                        }
                    }
                    print(line + ")")
                }
                if failures > 0 { throw PartialFailure("\(Formats.count(failures, "downloaded file")) could not be deleted") }
            }
        }
    }
}

/// `channel add --json`: a channel with the number of items that were new.
struct AddedChannelJSON: Encodable {
    let channel: ChannelSummary
    let newItems: Int
    let alreadySubscribed: Bool
    init(_ added: Subscriber.Added) { channel = added.channel; newItems = added.newItems; alreadySubscribed = added.alreadySubscribed }
    func encode(to encoder: any Encoder) throws {
        try channel.encode(to: encoder)
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(newItems, forKey: .newItems)
        try c.encode(alreadySubscribed, forKey: .alreadySubscribed)
    }
    enum Key: String, CodingKey { case newItems = "new_items", alreadySubscribed = "already_subscribed" }
}

extension ChannelCommand {
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Subscribe to every feed of an OPML file (newsboat, gPodder, AntennaPod exports), then sync them.")
        @OptionGroup var library: LibraryOptions
        @OptionGroup var output: OutputOptions
        @Flag(help: "Only record the subscriptions; fetch them at the next sync.") var noSync = false
        @Argument(help: "OPML file.", completion: .file(extensions: ["opml", "xml"])) var file: String

        func run() async throws {
            try await runReporting {
                let feeds = try OPML.parse(contentsOf: file)
                let lib = try await library.open(creating: true)
                let now = Clock.now()
                let (channels, known) = try await OPMLSubscriptions.newChannels(feeds, in: lib, reach: .anyAddress)
                if !output.json {
                    print("imported \(Formats.count(channels.count, "channel")) from \(file)" + (known > 0 ? " (\(known) already subscribed)" : ""))
                }
                let syncer = Syncer(store: lib, reach: .anyAddress)
                guard !noSync, !channels.isEmpty else {
                    let report = await syncer.subscribe(channels, fetch: false, now: now)
                    if let failed = report.channels.first(where: { $0.status == .error }) { throw CommandError(failed.error ?? "import failed") }
                    if output.json {
                        var summaries: [ChannelSummary] = []
                        for entry in report.channels { summaries.append(try await lib.channelSummary(id: entry.id)) }
                        try printJSON(summaries)
                    }
                    return
                }
                let bar = ProgressBar(enabled: !output.json && stderrIsTTY, total: channels.count)
                // Ctrl-C or SIGTERM: every feed is subscribed already; the fetches that finished are stored.
                let (report, interrupted) = await cancellingOnInterrupt {
                    await syncer.subscribe(channels, now: now) { r, done, _ in bar.update(done: done, label: r.name) }
                }
                bar.finish()
                if output.json {
                    try printJSON(report)
                } else {
                    for r in report.channels where r.status == .error {
                        print("error    \(r.id) \(Terminal.printable(r.name)): \(Terminal.printable(r.error ?? ""))")
                    }
                    print("synced \(Formats.count(report.channels.count, "channel")): \(Formats.count(report.newItems, "new item")), \(report.errors) failed")
                }
                if let interrupted {
                    throw CommandInterrupted(interrupted, "all \(Formats.count(channels.count, "channel")) subscribed, \(report.channels.count) synced; the others at the next sync")
                }
                if report.errors > 0 {
                    throw PartialFailure("\(report.errors) of \(Formats.count(report.channels.count, "feed")) could not be fetched; they stay subscribed and are retried by sync")
                }
            }
        }
    }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Write the subscriptions as OPML 2.0 (to FILE, or stdout).")
        @OptionGroup var library: LibraryOptions
        @Argument(help: "Output file (default: stdout).", completion: .file(extensions: ["opml"])) var file: String?

        func run() async throws {
            try await runReporting {
                let feeds = try await OPMLSubscriptions.feeds(of: try await library.open())
                let opml = OPML.export(feeds, dateCreated: Clock.now())
                if let file {
                    try FileOutput.write(opml.utf8, to: file)
                    print("exported \(Formats.count(feeds.count, "channel")) to \(file)")
                } else {
                    FileHandle.standardOutput.write(Data(opml.utf8))
                }
            }
        }
    }
}
