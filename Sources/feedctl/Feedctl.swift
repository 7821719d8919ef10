import ArgumentParser
import FeedModel
import CLISupport
import Foundation

/// The root command is only configuration: library commands grouped by noun, player verbs at
/// the top level (as mpc does).
@main
struct Feedctl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "feedctl",
        abstract: "Feed ingestion and background playback for podcasts, YouTube and Rumble.",
        version: FeedctlVersion.current,
        subcommands: [
            ParseCommand.self,
            ChannelCommand.self, SyncCommand.self, WorkerCommand.self,
            FeedCommand.self, SearchCommand.self, DiscoverCommand.self, ShowCommand.self, WatchedCommand.self, ProgressCommand.self,
            SaveCommand.self, UnsaveCommand.self, SavedCommand.self, CollectionCommand.self, HistoryCommand.self,
            FollowCommand.self, FollowedCommand.self, UnfollowCommand.self,
            PlayCommand.self, PauseCommand.self, ResumeCommand.self, ToggleCommand.self, StopCommand.self,
            SeekCommand.self, VolumeCommand.self, StatusCommand.self, QueueCommand.self, NextCommand.self,
            SleepCommand.self, SpeedCommand.self, ChaptersCommand.self, ChapterCommand.self, DownloadCommand.self,
            DaemonCommand.self, QuitCommand.self, ConfigCommand.self, UserCommand.self, DatabaseCommand.self, ServeForward.self,
        ])

    /// Like ArgumentParser's default, except that errors are one line on stderr (`feedctl: …`)
    /// without the usage dump, so scripts and people get the same short message.
    static func main() async {
        do {
            // Everything after `daemon` is the daemon's, `--help` included: parsed here it
            // showed this stub's help, which pointed back at itself.
            let arguments = CommandLine.arguments.dropFirst()
            if arguments.first == DaemonCommand.configuration.commandName {
                try DaemonCommand(options: Array(arguments.dropFirst())).run()
            }
            if arguments.first == ServeForward.configuration.commandName {
                try ServeForward(options: Array(arguments.dropFirst())).run()
            }
            if let parse = parseFeedCommand() {
                try parse.run()
                return
            }
            var command: any ParsableCommand
            do {
                command = try await asyncParseAsRoot()
            } catch where exitCode(for: error) == .validationFailure {
                // A mistyped command gets the nearest one instead of `Unexpected argument`.
                guard let suggestion = CommandSuggestion.message(for: Array(arguments), root: Self.self) else { throw error }
                printError(suggestion)
                Foundation.exit(ExitCode.validationFailure.rawValue)
            }
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exitReporting(error)
        }
    }

    /// `feedctl parse …` parsed without the whole command tree: building it checks every
    /// subcommand type's conformances (~10 ms of runtime lookups per process), and parse is
    /// the command scripts run once per file. A plain command line (sources and at most one
    /// `--json`) needs no parser at all (ArgumentParser's own pass over one command still
    /// costs ~3 ms of type lookups); anything unusual (help, a usage error) returns nil and
    /// goes through the root, so messages stay exactly the same.
    private static func parseFeedCommand() -> ParseRun? {
        let arguments = CommandLine.arguments.dropFirst()
        guard arguments.first == ParseCommand.configuration.commandName else { return nil }
        let rest = arguments.dropFirst()
        let sources = rest.filter { $0 != "--json" }
        if !sources.isEmpty, rest.count - sources.count <= 1,
           sources.allSatisfy({ !$0.isEmpty && !$0.hasPrefix("-") && $0 != "help" }) {
            return ParseRun(sources: sources, json: sources.count < rest.count)
        }
        guard let command = try? ParseCommand.parse(Array(rest)) else { return nil }
        return ParseRun(sources: command.sources, json: command.json)
    }
}
