import FeedctlControl
import ArgumentParser
import FeedIngest
import Foundation

struct ChannelCommand: ParsableCommand {
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
                let subscriber = Subscriber(syncer: Syncer(library: try library.open()))
                var added: [AddedChannelJSON] = []
                var failures = 0
                for url in urls {
                    do {
                        for entry in try await subscriber.add(url, includeShorts: shorts) {
                            added.append(AddedChannelJSON(entry))
                            if !output.json {
                                print("added \(entry.channel.id): \(entry.channel.name) [\(entry.channel.platform.rawValue)] — \(entry.newItems) new item\(entry.newItems == 1 ? "" : "s")")
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

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List subscribed channels.")
        @OptionGroup var library: LibraryOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            try runReporting {
                let channels = try library.open().channelSummaries()
                if output.json { return try printJSON(channels) }
                if channels.isEmpty { print("no channels yet: feedctl channel add URL"); return }
                for c in channels {
                    let error = c.lastError.map { "  ! \($0)" } ?? ""
                    print(pad(String(c.id), 4, right: true) + "  " + pad(c.platform.rawValue, 8) + pad(String(c.items), 6, right: true)
                          + " items " + pad(String(c.unwatched), 5, right: true) + " unwatched  " + c.name + error)
                }
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one channel.")
        @OptionGroup var library: LibraryOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "Channel id.") var id: Int64

        func run() throws {
            try runReporting {
                let c = try library.open().channelSummary(id: id)
                if output.json { return try printJSON(c) }
                print("\(c.id): \(c.name) [\(c.platform.rawValue)]")
                print("url:         \(c.url)")
                print("feed:        \(c.feedURL)")
                print("items:       \(c.items) (\(c.unwatched) unwatched)")
                print("last synced: \(c.lastSynced.map(formatDate) ?? "never")")
                print("next poll:   \(c.nextPoll.map(formatDate) ?? "-")")
                if let e = c.lastError { print("last error:  \(e)") }
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Unsubscribe: removes the channel and its items; play history stays.")
        @OptionGroup var library: LibraryOptions
        @Argument(help: "Channel ids.") var ids: [Int64]

        func run() throws {
            try runReporting {
                let lib = try library.open()
                for id in ids {
                    let name = try lib.channel(id: id).name
                    try lib.removeChannel(id: id)
                    print("removed \(id): \(name)")
                }
            }
        }
    }
}

/// `channel add --json`: a channel with the number of items that were new.
struct AddedChannelJSON: Encodable {
    let channel: ChannelSummary
    let newItems: Int
    init(_ added: Subscriber.Added) { channel = added.channel; newItems = added.newItems }
    func encode(to encoder: any Encoder) throws {
        try channel.encode(to: encoder)
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(newItems, forKey: .newItems)
    }
    enum Key: String, CodingKey { case newItems = "new_items" }
}

/// `2026-11-14 09:00` in local time.
func formatDate(_ epoch: Int64) -> String {
    let f = DateFormatter()
    f.dateFormat = "yyyy-MM-dd HH:mm"
    return f.string(from: Date(timeIntervalSince1970: TimeInterval(epoch)))
}

extension ChannelCommand {
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Subscribe to every feed of an OPML file (newsboat, gPodder, AntennaPod exports), then sync them.")
        @OptionGroup var library: LibraryOptions
        @OptionGroup var output: OutputOptions
        @Flag(help: "Only record the subscriptions; fetch them at the next sync.") var noSync = false
        @Argument(help: "OPML file.") var file: String

        func run() async throws {
            try await runReporting {
                let feeds = try OPML.parse(contentsOf: file)
                let lib = try library.open()
                let now = Clock.now()
                var channels: [Channel] = []
                var known = 0
                for feed in feeds {
                    if try lib.channel(feedURL: feed.xmlURL) != nil { known += 1; continue }
                    channels.append(try lib.addChannel(platform: Platform(guessingFrom: feed.xmlURL), sourceURL: feed.htmlURL ?? feed.xmlURL,
                                                       feedURL: feed.xmlURL, name: feed.title, now: now))
                }
                if !output.json {
                    print("imported \(channels.count) channel\(channels.count == 1 ? "" : "s") from \(file)" + (known > 0 ? " (\(known) already subscribed)" : ""))
                }
                guard !noSync, !channels.isEmpty else {
                    if output.json { try printJSON(try channels.map { try lib.channelSummary(id: $0.id) }) }
                    return
                }
                let bar = ProgressBar(enabled: !output.json && stderrIsTTY, total: channels.count)
                let report = await Syncer(library: lib).sync(channels, now: now) { r, done, _ in bar.update(done: done, label: r.name) }
                bar.finish()
                if output.json { return try printJSON(report) }
                for r in report.channels where r.status == .error { print("error    \(r.id) \(r.name): \(r.error ?? "")") }
                print("synced \(channels.count): \(report.newItems) new items, \(report.errors) failed")
            }
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Write the subscriptions as OPML 2.0 (to FILE, or stdout).")
        @OptionGroup var library: LibraryOptions
        @Argument(help: "Output file (default: stdout).") var file: String?

        func run() throws {
            try runReporting {
                let opml = try library.open().exportOPML(now: Clock.now())
                if let file {
                    try Data(opml.utf8).write(to: URL(fileURLWithPath: file), options: .atomic)
                } else {
                    FileHandle.standardOutput.write(Data(opml.utf8))
                }
            }
        }
    }
}

extension Platform {
    /// A feed URL's platform, before anything is fetched (OPML import).
    init(guessingFrom url: String) {
        let host = URL(string: url)?.host?.lowercased() ?? ""
        if host == "youtube.com" || host.hasSuffix(".youtube.com") { self = .youtube }
        else if host == "rumble.com" || host.hasSuffix(".rumble.com") { self = .rumble }
        else { self = .podcast }
    }
}
