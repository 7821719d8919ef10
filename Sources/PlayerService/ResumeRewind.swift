import FeedModel

/// Smart resume: how far back a resume starts after a pause of some length (`SmartResume` holds
/// the product's defaults; the daemon's configuration may change both).
public struct ResumeRewind: Sendable, Equatable {
    /// A pause longer than this (seconds) rewinds on resume.
    public var afterPause: Double
    /// Seconds to go back.
    public var seconds: Double

    public init(afterPause: Double = SmartResume.afterPause, seconds: Double = SmartResume.rewind) {
        self.afterPause = afterPause
        self.seconds = seconds
    }

    /// Never rewinds.
    public static let off = ResumeRewind(afterPause: .infinity, seconds: 0)

    /// The seconds to go back when resuming after a pause of `paused` seconds (0: none).
    public func rewind(afterPausing paused: Double) -> Double {
        guard paused.isFinite, seconds.isFinite, seconds > 0, paused > afterPause else { return 0 }
        return min(seconds, PlayerLimits.maxPosition)
    }
}
