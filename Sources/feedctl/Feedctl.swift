import ArgumentParser
import FeedIngest

@main
struct Feedctl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "feedctl",
        abstract: "Feed ingestion and background playback for podcasts, YouTube and Rumble.",
        subcommands: [ParseCommand.self])
}
