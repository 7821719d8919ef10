import ArgumentParser
import FeedIngest
import FeedModel
import CLISupport
import Foundation
import LibraryStore

struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Poll subscriptions: the due ones, the given ids, or all with --all.")
    @OptionGroup var library: LibraryOptions
    @OptionGroup var output: OutputOptions
    @Flag(help: "Poll every active channel, due or not.") var all = false
    @Argument(help: "Channel ids to poll now.", completion: .channelIDs) var ids: [Int64] = []

    func run() async throws {
        try await runReporting {
            let lib = try await library.open()
            let now = Clock.now()
            let claimant = SyncClaimant.next()
            // What this sync stores comes after it (ids only grow): the new items it names.
            let lastItem = try await lib.lastItemID()
            let channels: [Channel]
            if ids.isEmpty && !all {
                // Due channels, claimed so that no other process (the daemon, the server) polls them too.
                channels = try await lib.polling.claimDueChannels(now: now, claimant: claimant)
            } else if !ids.isEmpty {
                // Asked for by id or --all: polled even if not due (the sync claims them: one another
                // process is polling now is skipped).
                var picked: [Channel] = []
                for id in ids { picked.append(try await lib.channel(id: id)) }
                channels = picked
            } else {
                channels = try await lib.allChannels().filter(\.active)
            }
            let bar = ProgressBar(enabled: !output.json && stderrIsTTY, total: channels.count)
            // Ctrl-C or SIGTERM cancels the fetches still running; what finished is stored first.
            let (report, interrupted) = await cancellingOnInterrupt {
                await Syncer(store: lib, reach: .anyAddress).sync(channels, claimant: claimant, now: now) { result, done, _ in
                    bar.update(done: done, label: result.name)
                }
            }
            bar.finish()
            // Followed collections of other servers: the due ones (every user's, as the due
            // channels), and with --all the owner's now. Not for a sync of given channels.
            var followed = FollowRefresher.Report()
            if ids.isEmpty && interrupted == nil {
                let refresher = FollowRefresher(store: lib.sharedCollections, reach: .anyAddress)
                if all { followed = await refresher.refresh(try await lib.remoteFollows(), now: now) }
                let due = await refresher.refreshDue(now: now)
                followed.read += due.read; followed.withdrawn += due.withdrawn; followed.errors += due.errors
            }
            for r in report.channels where r.status == .busy {
                printError("skipped \(r.id) \(Terminal.printable(r.name)): another feedctl process is syncing it now")
            }
            if output.json {
                try printJSON(report)
            } else if channels.isEmpty && ids.isEmpty && !all {
                print(try await Self.nothingDue(lib, now: now))
            } else {
                printSummary(report)
                try await Self.printNew(report, lib, after: lastItem)
            }
            for error in followed.errors { printError("followed collection: \(Terminal.printable(error))") }
            if !followed.isEmpty && !output.json { print(followed.summary) }
            if let interrupted {
                throw CommandInterrupted(interrupted, "\(report.channels.filter { $0.status != .busy }.count) of \(Formats.count(channels.count, "channel")) synced and stored; the others were left as they were")
            }
            if report.errors > 0 || !followed.errors.isEmpty {
                let tried = report.channels.filter { $0.status != .busy }.count
                let message = report.errors > 0 ? "\(report.errors) of \(Formats.count(tried, "channel")) failed to sync"
                    : "\(Formats.count(followed.errors.count, "followed collection")) could not be read"
                // All of them failing is worth the plain failure status (network down).
                if report.errors == tried && followed.read + followed.withdrawn == 0 { throw CommandError(message) }
                throw PartialFailure(message)
            }
        }
    }

    /// Why a plain `sync` polled nothing, and when it will have something to do.
    static func nothingDue(_ lib: some ChannelStore, now: Int64) async throws -> String {
        let active = try await lib.allChannels().filter(\.active)
        if active.isEmpty { return "no channels to sync yet: feedctl channel add URL" }
        let next = active.map { $0.nextPoll ?? now }.min() ?? now
        if next <= now {
            return "the due channels are being synced by another feedctl process now (a worker, the daemon's scheduler?)"
        }
        return "no channel is due: the next at \(Formats.minute(next)) (\(Formats.ahead(next - now))); feedctl sync --all polls every channel now"
    }

    /// How many new items a sync names before `and N more`.
    static let newItemsNamed = 5

    /// The items this sync stored first, a few of them by name (newest first), then how many more.
    static func printNew(_ report: SyncReport, _ lib: some ItemStore, after lastItem: Int64) async throws {
        guard report.newItems > 0 else { return }
        let updated = report.channels.filter { $0.newItems > 0 }.map(\.id)
        let named = try await lib.items(after: lastItem, channelIDs: updated, limit: newItemsNamed)
        named.forEach { print(ItemLine.format($0)) }
        if report.newItems > named.count { print("and \(report.newItems - named.count) more: feedctl feed") }
    }

    private func printSummary(_ report: SyncReport) {
        for r in report.channels where r.status == .error {
            print("error    \(r.id) \(Terminal.printable(r.name)): \(Terminal.printable(r.error ?? ""))")
        }
        let busy = report.channels.filter { $0.status == .busy }.count
        let count = report.channels.count - busy
        let updated = report.channels.filter { $0.status == .updated }.count
        let unchanged = report.channels.filter { $0.status == .unchanged }.count
        let skipped = busy > 0 ? ", \(busy) skipped (being synced elsewhere)" : ""
        print("synced \(Formats.count(count, "channel")): \(updated) updated, \(unchanged) unchanged, \(report.errors) failed\(skipped); \(Formats.count(report.newItems, "new item"))")
    }
}

/// A one-line progress bar on stderr, only when it is a terminal.
final class ProgressBar: @unchecked Sendable {
    private let enabled: Bool
    private let total: Int
    private let lock = NSLock()

    init(enabled: Bool, total: Int) { self.enabled = enabled && total > 0; self.total = total }

    func update(done: Int, label: String) {
        guard enabled else { return }
        lock.lock(); defer { lock.unlock() }
        let width = 30
        let filled = total == 0 ? width : done * width / total
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let line = "\r[\(bar)] \(done)/\(total) \(label.prefix(40))\u{1B}[K"
        FileHandle.standardError.write(Data(line.utf8))
    }

    func finish() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
