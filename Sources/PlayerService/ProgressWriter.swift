import FeedModel
import LibraryStore
import NowPlaying
import PlayerCore
import Synchronization

/// Writes listening progress to the library: the resume position at each checkpoint, and
/// "watched" plus a history entry once a playback counts as heard (`WatchRule`, once per
/// playback; the history by the store's rule, `WatchUpdate.recordsPlay`). Only library items have a place to go. The player calls it on its progress queue;
/// one writer task keeps the library's writes in the order the player reported them.
final class ProgressWriter: ProgressSink, @unchecked Sendable {
    private let library: any ListeningStore
    private let log: ServiceLog
    /// Set once by the service before playback starts.
    nonisolated(unsafe) var onEnded: (@Sendable (TrackKey, PlayerError?) -> Void)?

    private let heard = Mutex(OncePerPlayback())
    private let writes: AsyncStream<@Sendable () async -> Void>.Continuation

    init(library: any ListeningStore, log: @escaping ServiceLog) {
        self.library = library
        self.log = log
        let (stream, writes) = AsyncStream.makeStream(of: (@Sendable () async -> Void).self)
        self.writes = writes
        Task.detached { for await write in stream { await write() } }
    }

    /// Returns once every write queued so far reached the library.
    func flush() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            writes.yield { done.resume() }
        }
    }

    func progress(_ report: ProgressReport) {
        guard let id = report.key.itemID else { return }
        let (library, log) = (self.library, self.log)
        if report.kind != .tick {
            writes.yield {
                do { try await library.setProgress(id, seconds: Int(report.position.rounded(.down)), length: report.duration, now: Clock.now()) }
                catch { log("saving progress of item \(id): \(error)") }
            }
        }
        guard heard.withLock({ $0.isNewlyHeard(report) }) else { return }
        // Written as a heard position: the store marks the item watched and records the play in
        // the history by its one rule (`WatchUpdate.recordsPlay`), as for a browser's progress.
        // At the end the position is the length (a stream may not have known it before).
        let length = report.kind == .end ? max(report.duration ?? 0, report.position) : report.duration
        let seconds = Int((report.kind == .end ? length ?? report.position : report.position).rounded(.up))
        writes.yield {
            do { try await library.setProgress(id, seconds: seconds, length: length, now: Clock.now()) }
            catch { log("marking item \(id) watched: \(error)") }
        }
    }

    func playbackEnded(key: TrackKey, error: PlayerError?) {
        onEnded?(key, error)
    }
}

/// `WatchRule` applied to every report of a playback (each tick, each checkpoint, the end):
/// yes once per playback, for the first report at its end or meeting the rule.
struct OncePerPlayback: Sendable {
    private var reported: PlaybackID?

    mutating func isNewlyHeard(_ report: ProgressReport) -> Bool {
        guard report.playback != reported else { return false }
        guard report.kind == .end || WatchRule.isHeard(position: report.position, duration: report.duration) else { return false }
        reported = report.playback
        return true
    }
}
