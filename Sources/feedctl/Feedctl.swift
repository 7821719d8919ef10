import ArgumentParser
import FeedIngest

/// The root command is only configuration: library commands grouped by noun, player verbs at
/// the top level (as mpc does).
@main
struct Feedctl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "feedctl",
        abstract: "Feed ingestion and background playback for podcasts, YouTube and Rumble.",
        subcommands: [
            ParseCommand.self,
            ChannelCommand.self, SyncCommand.self,
        ])
}
