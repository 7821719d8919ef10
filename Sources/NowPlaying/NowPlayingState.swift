/// A change the player reports. Applying it to a ``NowPlayingState`` yields the events to publish.
public enum NowPlayingChange: Sendable, Equatable {
    case status(PlaybackStatus)
    case metadata(TrackMetadata?)
    /// The position jumped (a seek, or a start at a saved position).
    case seeked(position: Double)
    /// The regular 1 Hz progress report.
    case tick(position: Double, duration: Double?)
    case volume(Double)
    case rate(Double)
    case error(String?)
    case chapter(String?)
    /// Whether an up-next queue has something after/before the current item (the daemon owns the queue).
    case queue(canGoNext: Bool, canGoPrevious: Bool)
}

/// What subscribers receive. Only real changes become events (setting the same volume twice is one event).
public enum NowPlayingEvent: Sendable, Equatable {
    case statusChanged(PlaybackStatus)
    case metadataChanged(TrackMetadata?)
    case seeked(position: Double)
    case tick(position: Double, duration: Double?)
    case volumeChanged(Double)
    case rateChanged(Double)
    case errorChanged(String?)
    case chapterChanged(String?)
    case capabilitiesChanged
}

/// The MPRIS-shaped state as a pure value: `apply` is the whole transition logic, so it is testable
/// without audio or concurrency.
public struct NowPlayingState: Sendable, Equatable {
    public private(set) var status: PlaybackStatus = .stopped
    public private(set) var metadata: TrackMetadata?
    /// Seconds into the item, as last reported (MPRIS clients read it on demand; it is not an event).
    public private(set) var position: Double = 0
    public private(set) var rate: Double = 1
    public private(set) var volume: Double = 1
    public private(set) var error: String?
    /// The current chapter's title (nil when the item has no chapters or none has started yet).
    public private(set) var chapter: String?
    public private(set) var canGoNext = false
    public private(set) var canGoPrevious = false

    public init() {}

    public var canPlay: Bool { metadata != nil }
    public var canPause: Bool { metadata != nil }
    public var canSeek: Bool { metadata != nil && metadata?.length != nil }
    public var canControl: Bool { true }

    /// Applies a change and returns the events it causes, in order.
    public mutating func apply(_ change: NowPlayingChange) -> [NowPlayingEvent] {
        switch change {
        case .status(let new):
            guard new != status else { return [] }
            status = new
            if new == .stopped { position = 0 }
            return [.statusChanged(new)]
        case .metadata(let new):
            guard new != metadata else { return [] }
            let couldSeek = canSeek, couldPlay = canPlay
            metadata = new
            position = 0
            chapter = nil
            var events: [NowPlayingEvent] = [.metadataChanged(new)]
            if couldSeek != canSeek || couldPlay != canPlay { events.append(.capabilitiesChanged) }
            return events
        case .seeked(let p):
            position = max(0, p)
            return [.seeked(position: position)]
        case .tick(let p, let duration):
            position = max(0, p)
            var events: [NowPlayingEvent] = []
            if let duration, metadata != nil, metadata?.length != duration {
                let couldSeek = canSeek
                metadata?.length = duration
                events.append(.metadataChanged(metadata))
                if couldSeek != canSeek { events.append(.capabilitiesChanged) }
            }
            events.append(.tick(position: position, duration: duration))
            return events
        case .volume(let v):
            let v = min(1, max(0, v))
            guard v != volume else { return [] }
            volume = v
            return [.volumeChanged(v)]
        case .rate(let r):
            guard r != rate else { return [] }
            rate = r
            return [.rateChanged(r)]
        case .error(let e):
            guard e != error else { return [] }
            error = e
            return [.errorChanged(e)]
        case .chapter(let c):
            guard c != chapter else { return [] }
            chapter = c
            return [.chapterChanged(c)]
        case .queue(let next, let previous):
            guard next != canGoNext || previous != canGoPrevious else { return [] }
            canGoNext = next
            canGoPrevious = previous
            return [.capabilitiesChanged]
        }
    }
}
