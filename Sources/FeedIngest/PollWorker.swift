import FeedModel
import Foundation
import LibraryStore
import Synchronization

/// A stateless sync worker (`feedctl worker`): round after round it claims at most `batch` due
/// channels (`PollStore.claimDueChannels`, with its poller's lease), polls them (`Poller`:
/// today's fetcher and its bounds), stores the polls (which releases their claims) and releases
/// what it did not store. When nothing is due it sleeps until the next channel falls due
/// (`PollWorkerRule.idleSeconds`). It keeps nothing between rounds but its counters, so any
/// number of workers, on any number of machines, share one library: the claims see to it that
/// no feed is fetched by two at once, and a worker that dies holds its channels only until
/// their lease expires.
///
/// `stop()` (the first SIGTERM or SIGINT) lets the round in hand finish (its polls stored) and
/// starts no other; `abort()` (a second one) cancels the round's fetches, stores what finished
/// and releases the rest. Either way `run` returns once the worker holds nothing.
public final class PollWorker: Sendable {
    public let poller: Poller
    /// Refreshes the due followed collections of other servers in each round (at most `batch`).
    public let follows: FollowRefresher?
    /// Channels claimed per round at most (`PollWorkerRule.batches`).
    public let batch: Int
    private let log: @Sendable (String) -> Void
    private let state = Mutex(State())

    private struct State {
        var stopping = false
        var aborting = false
        /// The loop, cancelled by `stop` to cut its sleep short (a round runs in a task of its
        /// own, which cancelling the loop does not reach).
        var loop: Task<Totals, Never>?
        /// The round in hand, cancelled by `abort`.
        var round: Task<(Round, FollowRefresher.Report?), Never>?
    }

    /// What the worker did, for its last line.
    public struct Totals: Sendable, Equatable {
        public var rounds = 0
        /// Polls stored (changed, unchanged or failed).
        public var polled = 0
        public var newItems = 0
        public var errors = 0
    }

    /// What one round came to.
    enum Round: Sendable {
        case polled(claimed: Int, SyncReport)
        /// Nothing was due: when the next channel is (nil: none is followed).
        case idle(nextDue: Int64?)
        case failed(LibraryError)
        /// Stopped before claiming anything.
        case stopped
    }

    public init(poller: Poller, follows: FollowRefresher? = nil, batch: Int, log: @escaping @Sendable (String) -> Void) {
        self.poller = poller
        self.follows = follows
        self.batch = min(max(batch, PollWorkerRule.batches.lowerBound), PollWorkerRule.batches.upperBound)
        self.log = log
    }

    /// Runs rounds until `stop` or `abort`; returns once the worker holds no claim.
    public func run() async -> Totals {
        let loop = Task { await self.loop() }
        let stoppedAlready = state.withLock { state in
            state.loop = loop
            return state.stopping
        }
        if stoppedAlready { loop.cancel() }
        return await loop.value
    }

    /// Finishes the round in hand (its polls stored), starts no other.
    public func stop() {
        let loop = state.withLock { state in
            state.stopping = true
            return state.loop
        }
        loop?.cancel()
    }

    /// Stops, and cancels the round in hand: its fetches still running are abandoned, what
    /// finished is stored, the rest released.
    public func abort() {
        let round = state.withLock { state in
            state.aborting = true
            return state.round
        }
        stop()
        round?.cancel()
    }

    /// What a signal does: the first stops, any later one aborts.
    public func interrupt() {
        if state.withLock({ $0.stopping }) { abort() } else { stop() }
    }

    private var isStopping: Bool { state.withLock { $0.stopping } }

    private func loop() async -> Totals {
        var totals = Totals()
        while !isStopping {
            let started = Clock.monotonic()
            // Followed collections of other servers beside the channels, in the same task: an
            // abort cancels both.
            let round = Task { () -> (Round, FollowRefresher.Report?) in
                async let followed = self.follows?.refreshDue(now: Clock.now(), limit: self.batch, lease: self.poller.lease)
                return (await self.round(), await followed)
            }
            let abortedAlready = state.withLock { state in
                state.round = round
                return state.aborting
            }
            if abortedAlready { round.cancel() }
            let (outcome, followed) = await round.value
            state.withLock { $0.round = nil }
            if let refreshed = followed, !refreshed.isEmpty {
                log("worker: " + refreshed.summary)
                for error in refreshed.errors { log("worker: \(error)") }
            }
            let seconds = Clock.monotonic() - started
            switch outcome {
            case .polled(let claimed, let report):
                totals.rounds += 1
                totals.polled += report.channels.count
                totals.newItems += report.newItems
                totals.errors += report.errors
                log("worker: round \(totals.rounds): " + Self.summary(claimed: claimed, report, seconds: seconds))
            case .idle(let nextDue):
                totals.rounds += 1
                let idle = PollWorkerRule.idleSeconds(now: Clock.now(), nextDue: nextDue)
                let next = nextDue.map { "the next channel is due in \(max(0, $0 - Clock.now())) s" } ?? "no channel is followed"
                log("worker: round \(totals.rounds): nothing due (\(next)); sleeping \(idle) s")
                try? await Task.sleep(for: .seconds(idle))
            case .failed(let error):
                totals.rounds += 1
                let idle = PollWorkerRule.maxIdleSeconds
                log("worker: round \(totals.rounds): cannot claim the due channels: \(error.description) (trying again in \(idle) s)")
                try? await Task.sleep(for: .seconds(idle))
            case .stopped:
                break
            }
        }
        log("worker: stopped after \(Self.count(totals.rounds, "round")): \(Self.count(totals.polled, "channel")) polled, "
            + "\(Self.count(totals.newItems, "new item")), \(Self.count(totals.errors, "error"))")
        return totals
    }

    /// One round: claim, poll, store, release.
    private func round() async -> Round {
        guard !isStopping else { return .stopped }
        let claimant = SyncClaimant.next()
        let now = Clock.now()
        let polling = poller.polling
        do throws(LibraryError) {
            let claimed = try await polling.claimDueChannels(now: now, claimant: claimant, limit: batch, lease: poller.lease)
            if claimed.isEmpty { return .idle(nextDue: try await polling.nextDue()) }
            return .polled(claimed: claimed.count, await poller.pollClaimed(claimed, claimant: claimant, now: now))
        } catch {
            return .failed(error)
        }
    }

    /// `1 round`, `2 rounds`.
    static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }

    /// `50 channels: 3 updated, 45 unchanged, 2 failed; 14 new items in 3.2 s`, with what an
    /// interrupted round left unpolled.
    static func summary(claimed: Int, _ report: SyncReport, seconds: Double) -> String {
        let updated = report.channels.filter { $0.status == .updated }.count
        let unchanged = report.channels.filter { $0.status == .unchanged }.count
        let unpolled = claimed - report.channels.count
        let left = unpolled > 0 ? ", \(unpolled) released unpolled" : ""
        return "\(count(claimed, "channel")): \(updated) updated, \(unchanged) unchanged, \(report.errors) failed\(left); "
            + "\(count(report.newItems, "new item")) in \(String(format: "%.1f", seconds)) s"
    }
}
