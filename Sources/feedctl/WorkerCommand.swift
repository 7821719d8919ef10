import ArgumentParser
import CLISupport
import FeedIngest
import FeedModel
import Foundation
import HTTPFetch
import LibraryStore

/// `feedctl worker`: a stateless sync worker (`PollWorker`). A subcommand rather than a program
/// of its own: it needs nothing `sync` does not (the fetcher, the parser, the library), so a
/// separate executable would only be a second copy of the same code to build and install.
struct WorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Poll due subscriptions until stopped; run as many as you like on one library.",
        discussion: """
            Claims at most --batch due channels at a time, polls them, stores the polls and claims \
            again; sleeps until the next channel is due when none is. Claims keep any two workers \
            (or the daemon, a cron sync) from fetching one feed at once; a worker that dies holds \
            its channels until their lease expires (\(PollLease.standard.seconds / 60) minutes). SIGTERM or SIGINT: the round in \
            hand is finished and stored, then it exits 0; a second signal abandons the fetches \
            still running (what finished is stored, the rest released). One log line per round, \
            on stderr.
            """)
    @OptionGroup var library: LibraryOptions
    @Option(help: ArgumentHelp("Channels claimed per round, \(PollWorkerRule.batches.lowerBound) to \(PollWorkerRule.batches.upperBound).",
                               valueName: "n"))
    var batch = PollWorkerRule.defaultBatch
    @Option(help: ArgumentHelp("Fetches at once, \(PollWorkerRule.concurrencies.lowerBound) to \(PollWorkerRule.concurrencies.upperBound).",
                               valueName: "n"))
    var concurrency = PollWorkerRule.defaultConcurrency

    /// Tests only: a lease of this many seconds instead of `PollLease.standard`, so a test sees
    /// a killed worker's claims expire (docs/testing.md).
    static let testLeaseVariable = "FEEDCTL_TEST_POLL_LEASE"

    func validate() throws {
        guard PollWorkerRule.batches.contains(batch) else {
            throw ValidationError("--batch must be from \(PollWorkerRule.batches.lowerBound) to \(PollWorkerRule.batches.upperBound) (got \(batch))")
        }
        guard PollWorkerRule.concurrencies.contains(concurrency) else {
            throw ValidationError("--concurrency must be from \(PollWorkerRule.concurrencies.lowerBound) to \(PollWorkerRule.concurrencies.upperBound) (got \(concurrency))")
        }
    }

    func run() async throws {
        try await runReporting {
            let lease = try Self.lease(ProcessInfo.processInfo.environment)
            let database = try await library.openDatabase()
            let poller = Poller(polling: database.polling, reach: .anyAddress, fetcher: Fetcher(concurrency: concurrency), lease: lease)
            let follows = FollowRefresher(store: database.owner.sharedCollections, reach: .anyAddress, fetcher: poller.fetcher)
            let worker = PollWorker(poller: poller, follows: follows, batch: batch, log: log)
            // The first signal finishes the round in hand, the second abandons its fetches.
            let signals = [SIGTERM, SIGINT].map { sig in
                signal(sig, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
                // Signals that came together are handled together: count each.
                source.setEventHandler { for _ in 0..<max(1, source.data) { worker.interrupt() } }
                source.resume()
                return source
            }
            log("worker: polling \(database.location), \(batch) channels a round, \(concurrency) fetches at once, claims for \(lease)")
            _ = await worker.run()
            signals.forEach { $0.cancel() }
        }
    }

    /// The lease its claims take: the standard one, or the test's.
    static func lease(_ environment: [String: String]) throws -> PollLease {
        guard let text = environment[testLeaseVariable], !text.isEmpty else { return .standard }
        guard let seconds = Int64(text), seconds > 0 else {
            throw CommandError("\(testLeaseVariable) must be a whole number of seconds above 0 (got \"\(text)\"); it is for tests only")
        }
        return PollLease(uncheckedSeconds: seconds)
    }
}
