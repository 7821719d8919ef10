import ArgumentParser
import FeedIngest

@main
struct Feedctl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "feedctl",
        abstract: "Feed ingestion and background playback for podcasts, YouTube and Rumble.",
        subcommands: [
            FeedCommand.self, ShowCommand.self, WatchedCommand.self, ProgressCommand.self, SaveCommand.self,
            UnsaveCommand.self, SavedCommand.self, CollectionCommand.self, HistoryCommand.self,
        ])
}
