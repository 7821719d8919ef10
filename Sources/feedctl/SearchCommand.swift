import ArgumentParser
import CLISupport
import FeedModel
import LibraryStore

/// `feedctl search TEXT`: items whose title, show notes or channel name hold every word (as a
/// prefix too, accents ignored), best match first; `feed`'s filters. `feed --search TEXT` is the same.
struct SearchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Search item titles, show notes and channel names (every word, prefixes too, accents ignored).")
    @OptionGroup var library: LibraryOptions
    @OptionGroup var output: OutputOptions
    @Option(help: "youtube | rumble | podcast") var platform: Platform?
    @Option(help: "Only this channel id.", completion: .channelIDs) var channel: Int64?
    @Flag(help: "Only items not marked watched.") var unwatched = false
    @Option(help: "Items per page.") var limit = 20
    @Option(help: "Page number, from 1.") var page = 1
    @Argument(help: "Words to look for (quotes, operators and punctuation are only separators).") var words: [String]

    func validate() throws {
        guard limit > 0 else { throw ValidationError("--limit must be at least 1") }
        guard page > 0 else { throw ValidationError("--page must be at least 1") }
    }

    func run() async throws {
        try await runReporting {
            let query = SearchQuery(text: words.joined(separator: " "),
                                    filter: FeedFilter(platform: platform, channelID: channel, unwatchedOnly: unwatched),
                                    page: try PageRequest(page: page, perPage: limit))
            let lib = try await library.open()
            if let channel { _ = try await lib.channel(id: channel) }   // "no channel N", not an empty result
            try await Self.show(try await lib.search(query), json: output.json)
        }
    }

    static func show(_ items: [LibraryItem], json: Bool) async throws {
        if json { return try printJSON(items) }
        if items.isEmpty { print("nothing found"); return }
        items.forEach { print(ItemLine.format($0)) }
    }
}
