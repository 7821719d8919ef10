import Synchronization

/// The one owner of the now-playing state. Thread-safe: the player's threads call `apply`, any
/// number of subscribers read `state` or iterate `events()`.
public final class NowPlayingCenter: Sendable {
    private struct Inner {
        var state = NowPlayingState()
        var subscribers: [Int: AsyncStream<NowPlayingEvent>.Continuation] = [:]
        var nextID = 0
    }
    private let inner = Mutex(Inner())

    public init() {}

    public var state: NowPlayingState { inner.withLock { $0.state } }

    /// Applies a change and publishes the resulting events to every subscriber, in order.
    @discardableResult
    public func apply(_ change: NowPlayingChange) -> [NowPlayingEvent] {
        // Yield under the lock so two concurrent `apply` calls cannot interleave their events.
        inner.withLock { inner in
            let events = inner.state.apply(change)
            for event in events {
                for continuation in inner.subscribers.values { continuation.yield(event) }
            }
            return events
        }
    }

    /// A stream of events from now on. A slow subscriber loses the oldest events, never blocks the player.
    public func events(bufferingNewest limit: Int = 64) -> AsyncStream<NowPlayingEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: NowPlayingEvent.self,
                                                           bufferingPolicy: .bufferingNewest(limit))
        let id = inner.withLock { inner in
            let id = inner.nextID
            inner.nextID += 1
            inner.subscribers[id] = continuation
            return id
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.inner.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }
}
