import ArgumentParser
import CLISupport
import ControlProtocol
import Discovery
import FeedIngest
import FeedModel
import Foundation
import UserConfig
import HTTPFetch
import LibraryStore

/// `feedctl discover QUERY`: podcasts, channels and videos to follow, from every provider at once
/// (`FederatedSearch`), numbered; `--subscribe N`, `--save N`, `--play N` act on result N.
/// `feedctl discover top`: Apple's podcast chart.
struct DiscoverCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "discover",
        abstract: "Find podcasts, channels and videos to follow: iTunes, Podcast Index, YouTube (yt-dlp), Rumble and your library at once.",
        subcommands: [Search.self, Top.self], defaultSubcommand: Search.self)

    struct Search: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "search",
            abstract: "Search every provider at once; results are numbered, per-provider timings and failures go to stderr.")
        @OptionGroup var player: PlayerClientOptions
        @Option(name: .customLong("platform"),
                help: "podcast | youtube | rumble | library | itunes | podcastindex (repeat it, or commas: itunes,rumble; default: all)")
        var platformOptions: [String] = []
        /// `--platform a --platform b,c` → [a, b, c]. One value per option, so that the words
        /// may come after it (`discover --platform podcast cats`).
        var platforms: [String] { platformOptions.flatMap { $0.split(separator: ",").map(String.init) } }
        @Flag(help: "Channels and podcasts (to subscribe to).") var channels = false
        @Flag(help: "Videos and episodes (the default).") var videos = false
        @Option(help: "Results per provider (1–\(DiscoveryRule.maxPerProvider)).") var limit = DiscoveryRule.defaultPerProvider
        @Option(help: ArgumentHelp("Subscribe to result N's channel or podcast.", valueName: "N")) var subscribe: Int?
        @Option(help: ArgumentHelp("Save result N (a library item, or a video page the library does not hold).", valueName: "N")) var save: Int?
        @Option(help: ArgumentHelp("Play result N (through the daemon).", valueName: "N")) var play: Int?
        @Argument(help: "Words to look for.") var words: [String]

        func validate() throws {
            if channels && videos { throw ValidationError("--channels and --videos: choose one") }
            guard (1...DiscoveryRule.maxPerProvider).contains(limit) else {
                throw ValidationError("--limit must be from 1 to \(DiscoveryRule.maxPerProvider)")
            }
            if [subscribe, save, play].compactMap({ $0 }).count > 1 { throw ValidationError("--subscribe, --save and --play: one at a time") }
            let query = words.joined(separator: " ").trimmingCharacters(in: .whitespaces)
            guard !query.isEmpty, query.utf8.count <= DiscoveryRule.maxQueryBytes else {
                throw ValidationError("the query must be 1 to \(DiscoveryRule.maxQueryBytes) characters")
            }
        }

        func run() async throws {
            var playTarget: String?
            try await runReporting {
                let settings = try discoverySettings()
                let lib = try await player.library.open()
                let providers = try settings.providers(platforms, fetcher: Fetcher.shared, store: lib)
                let request = DiscoveryRequest(query: words.joined(separator: " "), kind: channels ? .channels : .videos, limit: limit)
                let answer = await FederatedSearch(providers: providers, channels: lib).search(request)
                for outcome in answer.outcomes {
                    if let failure = outcome.failure {
                        printError("\(outcome.provider) failed after \(outcome.milliseconds) ms: \(failure.message)")
                    } else if !player.json {
                        FileHandle.standardError.write(Data("\(outcome.provider): \(Formats.count(outcome.results.count, "result")) in \(outcome.milliseconds) ms\n".utf8))
                    }
                }
                let action = subscribe ?? save ?? play
                if let action {
                    let result = try Self.result(action, of: answer)
                    if subscribe != nil { try await Self.subscribe(result, number: action, library: lib, json: player.json) }
                    if save != nil { try await Self.save(result, number: action, library: lib) }
                    if play != nil {
                        guard let target = result.playTarget else {
                            throw CommandError("result \(action) is a channel (\(result.title)): --subscribe \(action) follows it")
                        }
                        playTarget = target
                    }
                } else if player.json {
                    try printJSON(DiscoverJSON(answer))
                } else if answer.results.isEmpty {
                    print("nothing found")
                } else {
                    for (index, result) in answer.results.enumerated() { print(Self.line(result, number: index + 1)) }
                }
                let failed = answer.failed.count
                if action == nil, failed > 0 {
                    if failed == answer.outcomes.count { throw CommandError("every provider failed") }
                    throw PartialFailure("\(failed) of \(answer.outcomes.count) providers failed")
                }
            }
            if let playTarget { try player.run(.play(PlayTarget(commandLine: playTarget), fromStart: false), autostart: true) }
        }

        static func result(_ number: Int, of answer: FederatedSearch.Answer) throws -> DiscoveryResult {
            guard number >= 1, number <= answer.results.count else {
                throw CommandError("no result \(number): the search found \(Formats.count(answer.results.count, "result"))")
            }
            return answer.results[number - 1]
        }

        static func subscribe(_ result: DiscoveryResult, number: Int, library: some LibraryStore, json: Bool) async throws {
            guard let url = result.subscribeURL else {
                throw CommandError("result \(number) (\(result.title)) does not say which channel it is from")
            }
            let subscriber = Subscriber(syncer: Syncer(store: library, reach: .anyAddress))
            let added: [Subscriber.Added]
            do {
                added = try await subscriber.add(url)
            } catch {
                throw CommandError(String(describing: error))
            }
            if json { return try printJSON(added.map(AddedChannelJSON.init)) }
            for entry in added {
                let verb = entry.alreadySubscribed ? "already subscribed" : "added"
                print("\(verb) \(entry.channel.id): \(Terminal.printable(entry.channel.name)) [\(entry.channel.platform.rawValue)] — \(Formats.count(entry.newItems, "new item"))")
            }
        }

        /// A library item is saved as `feedctl save` saves it; a video the library does not hold
        /// (a YouTube or Rumble search result) is saved as the page it is, with what the search
        /// said about it (`feedctl saved` lists it; the app's Saved tab shows it).
        static func save(_ result: DiscoveryResult, number: Int, library: some LibraryStore & SavedVideoStore) async throws {
            if let id = result.libraryItemID {
                let new = try await library.save([id], now: Clock.now())
                print(new.isEmpty ? "already saved: \(id)" : "saved 1 item: \(id)")
                return
            }
            guard result.kind == .video else {
                throw CommandError("result \(number) (\(result.title)) is a channel: --subscribe \(number) follows it")
            }
            let page = SavedPage(platform: result.platform.rawValue, videoID: result.id, videoURL: result.url, title: result.title,
                                 description: result.description, thumbnailURL: result.thumbnail, durationSeconds: result.duration,
                                 viewCount: result.views.map { Int(clamping: $0) }, uploadDate: result.published,
                                 channelName: result.channelName, channelRef: result.channelID, channelURL: result.channelURL)
            let (video, created) = try await library.saveVideo(page: page, notes: nil, now: Clock.now())
            print("\(created ? "saved" : "already saved"): page \(video.id), \(Terminal.printable(video.page.title)) (not in your library)")
        }

        /// ` 3. [podcast] Title — Channel  4:05  ✓ subscribed`, cut to the terminal.
        static func line(_ result: DiscoveryResult, number: Int, width: Int? = Terminal.width) -> String {
            var parts = [Formats.pad(String(number), 3, right: true) + ". [\(result.platform.rawValue)]", Terminal.printable(result.title)]
            if let channel = result.channelName, channel != result.title { parts[1] += " — " + Terminal.printable(channel) }
            if let duration = result.duration { parts.append(Formats.clock(Double(duration))) }
            if result.kind == .channel { parts.append("(channel)") }
            if let id = result.libraryItemID { parts.append("item \(id)") }
            if result.subscribed { parts.append("✓ subscribed") }
            parts.append("<\(result.provider)>")
            return Terminal.fit(parts.joined(separator: "  "), width: width)
        }
    }
}

extension DiscoverCommand {
    /// `feedctl discover top`: Apple's podcast chart, numbered, followed ones marked.
    struct Top: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "top", abstract: "Apple's top podcasts chart (of one genre with --genre), numbered; --subscribe N follows one.")
        @OptionGroup var library: LibraryOptions
        @OptionGroup var output: OutputOptions
        @Option(help: "A genre: its Apple id (1489) or name (\(ApplePodcastsToplist.genres.keys.sorted().joined(separator: ", "))).")
        var genre: String?
        @Option(help: "How many (1–200).") var limit = 25
        @Option(help: ArgumentHelp("Subscribe to podcast N of the chart.", valueName: "N")) var subscribe: Int?

        func validate() throws {
            guard (1...200).contains(limit) else { throw ValidationError("--limit must be from 1 to 200") }
            if let genre, ApplePodcastsToplist.genre(genre) == nil {
                throw ValidationError("--genre takes an Apple genre id or one of \(ApplePodcastsToplist.genres.keys.sorted().joined(separator: ", ")), not \"\(genre)\"")
            }
        }

        func run() async throws {
            try await runReporting {
                let settings = try discoverySettings()
                let lib = try await library.open()
                let chart = ApplePodcastsToplist(baseURL: settings.toplist.baseURL, limits: settings.toplist.limits, fetcher: Fetcher.shared)
                var results: [DiscoveryResult]
                do throws(DiscoveryError) {
                    results = try await chart.top(limit: limit, genre: genre.flatMap(ApplePodcastsToplist.genre))
                } catch {
                    throw CommandError("the chart: \(error.message)")
                }
                let followed = SubscriptionIndex(try await lib.allChannels())
                for index in results.indices { results[index].subscribed = followed.contains(results[index]) }
                if let subscribe {
                    guard subscribe >= 1, subscribe <= results.count else {
                        throw CommandError("no podcast \(subscribe): the chart has \(results.count)")
                    }
                    return try await Search.subscribe(results[subscribe - 1], number: subscribe, library: lib, json: output.json)
                }
                if output.json { return try printJSON(results.enumerated().map { DiscoverJSON.Result(number: $0.offset + 1, $0.element) }) }
                if results.isEmpty { print("the chart is empty") }
                for (index, result) in results.enumerated() { print(Search.line(result, number: index + 1)) }
            }
        }
    }
}

/// `discover --json`: the results in order (`number` is what `--subscribe N` takes) and what
/// each provider did.
struct DiscoverJSON: Encodable {
    struct Result: Encodable {
        var number: Int
        var kind: String
        var platform: String
        var provider: String
        var id: String
        var title: String
        var url: String
        @Nullable var feedURL: String?
        @Nullable var channel: String?
        @Nullable var channelURL: String?
        @Nullable var channelID: String?
        @Nullable var description: String?
        @Nullable var thumbnail: String?
        @Nullable var duration: Int?
        @Nullable var views: Int64?
        @Nullable var published: Int64?
        @Nullable var audioURL: String?
        @Nullable var itemID: Int64?
        var subscribed: Bool
        @Nullable var subscribeURL: String?
        enum CodingKeys: String, CodingKey {
            case number, kind, platform, provider, id, title, url, feedURL = "feed_url", channel, channelURL = "channel_url"
            case channelID = "channel_id", description, thumbnail, duration, views, published, audioURL = "audio_url"
            case itemID = "item_id", subscribed, subscribeURL = "subscribe_url"
        }

        init(number: Int, _ r: DiscoveryResult) {
            self.number = number; kind = r.kind.rawValue; platform = r.platform.rawValue; provider = r.provider; id = r.id
            title = r.title; url = r.url; feedURL = r.feedURL; channel = r.channelName; channelURL = r.channelURL
            channelID = r.channelID; description = r.description; thumbnail = r.thumbnail; duration = r.duration
            views = r.views; published = r.published; audioURL = r.audioURL; itemID = r.libraryItemID
            subscribed = r.subscribed; subscribeURL = r.subscribeURL
        }
    }

    struct Provider: Encodable {
        var name: String
        var results: Int
        var milliseconds: Int
        @Nullable var error: String?
    }

    var query: String
    var type: String
    var results: [Result]
    var providers: [Provider]

    init(_ answer: FederatedSearch.Answer) {
        query = answer.request.query
        type = answer.request.kind.rawValue
        results = answer.results.enumerated().map { Result(number: $0.offset + 1, $0.element) }
        providers = answer.outcomes.map { Provider(name: $0.provider, results: $0.results.count, milliseconds: $0.milliseconds,
                                                   error: $0.failure?.message) }
    }
}

/// Discovery's settings: the config file's `[discover]` keys, the environment's over them.
func discoverySettings() throws -> DiscoverySettings {
    let environment: [String: String]
    do throws(ConfigError) { environment = try Config.discoveryEnvironment(ProcessInfo.processInfo.environment) } catch {
        throw CommandError(error.description)
    }
    return try DiscoverySettings(environment: environment)
}
