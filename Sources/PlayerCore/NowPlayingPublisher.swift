import NowPlaying
import Synchronization

/// What NowPlaying shows of the player at one moment, derived from its state.
struct NowPlayingView: Sendable, Equatable {
    var status: PlaybackStatus
    var metadata: TrackMetadata?
    var error: String?
    var volume: Double
    var rate: Double
    /// The title of the chapter at `position` (nil before the first or when there are none).
    var chapter: String?
    var jump: PlayerMachine.Jump
    /// The item playing or paused.
    var key: TrackKey?
    var playback: PlaybackID?
    /// What is heard now, and of how long an item.
    var position: Double
    var duration: Double?

    init(_ machine: PlayerMachine, position: Double) {
        status = machine.status
        metadata = machine.metadata
        error = machine.error?.description
        volume = machine.volume
        rate = machine.rate
        chapter = machine.chapters.index(at: position).map { machine.chapters.chapters[$0].title }
        jump = machine.jump
        key = machine.item?.request.key
        playback = machine.item?.playback
        self.position = position
        duration = machine.item?.duration
    }
}

/// The one place the player's state reaches NowPlaying: after every step of the machine and at
/// every tick, each field applied from the state (NowPlaying turns only real changes into events).
/// Serialized, with the state read inside, so a tick can never publish an older state over a newer one.
final class NowPlayingPublisher: Sendable {
    private struct Published {
        /// The metadata last derived from the state. Compared here rather than by NowPlaying,
        /// whose copy a tick may have given a different length: re-applying ours would announce
        /// a new track (and reset the position) on every step.
        var metadata: TrackMetadata?
        var jumps = 0
    }

    let center: NowPlayingCenter
    private let published = Mutex(Published())

    init(_ center: NowPlayingCenter) { self.center = center }

    /// Publishes the state `read` returns (nil: nothing); with `tick`, the 1 Hz position report
    /// first. Returns what it published.
    @discardableResult
    func publish(tick: Bool = false, _ read: () -> NowPlayingView?) -> NowPlayingView? {
        published.withLock { last in
            guard let view = read() else { return nil }
            if tick { center.apply(.tick(position: view.position, duration: view.duration)) }
            center.apply(.error(view.error))
            if view.metadata != last.metadata {
                last.metadata = view.metadata
                center.apply(.metadata(view.metadata))
            }
            center.apply(.volume(view.volume))
            center.apply(.rate(view.rate))
            // A stopped player (or one opening an item) has no current chapter; NowPlaying
            // clears it with the metadata.
            if view.status != .stopped { center.apply(.chapter(view.chapter)) }
            center.apply(.status(view.status))
            if view.jump.count != last.jumps {
                last.jumps = view.jump.count
                center.apply(.seeked(position: view.jump.position))
            }
            return view
        }
    }
}
