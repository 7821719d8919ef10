import ArgumentParser
import FeedIngest
import Foundation

struct ChannelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "channel",
        abstract: "Manage subscriptions (podcast feeds, YouTube and Rumble channels).",
        subcommands: [Add.self, List.self, Show.self, Remove.self])

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
