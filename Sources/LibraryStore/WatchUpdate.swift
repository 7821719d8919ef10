import FeedModel

/// A change to one user's watch state of an item, whoever makes it: the CLI's `watched` and
/// `progress`, the player's checkpoints, the API's watched and progress routes (feed,
/// collections, saved videos), a phone's gpodder actions. The store writes every one through
/// the same piece, and `outcome` is where `WatchRule` is applied, once for all of them
/// (`recordsPlay`, where a play reaches the history).
public enum WatchUpdate: Sendable, Equatable {
    /// A person's mark, watched or not. It wins over the rule, and resets the progress (to
    /// `progress` when the same request gave one: the API's watched routes take one).
    case mark(watched: Bool, progress: Int = 0)
    /// How far it was played. A position that counts as heard (`WatchRule`, against `length`
    /// when the caller knows the media's length better than the feed, as the player's decoder
    /// and a phone's `total` do, else the item's duration) marks it watched and resets the
    /// progress; any other records the progress and leaves the watched mark as it is.
    case position(seconds: Int, length: Double? = nil)

    /// The seconds this update writes, which must not be negative.
    public var seconds: Int {
        switch self {
        case .mark(_, let progress): progress
        case .position(let seconds, _): seconds
        }
    }

    /// What the stored state becomes for an item of `duration` seconds (nil: unknown; a
    /// `length` of 0 or less is unknown too): `watched` nil keeps the mark as it is.
    public func outcome(duration: Int?) -> (watched: Bool?, progress: Int) {
        switch self {
        case .mark(let watched, let progress):
            return (watched, progress)
        case .position(let seconds, let length):
            let known = length.flatMap { $0 > 0 ? $0 : nil } ?? duration.map(Double.init)
            if WatchRule.isHeard(position: Double(seconds), duration: known) { return (true, 0) }
            return (nil, seconds)
        }
    }

    /// Whether this update records a play in the history (`play_history`): the one rule, for
    /// the daemon's player and every client's progress route alike. A position that counts as
    /// heard is a play, once: unless the item already stood watched with no progress (this
    /// play's end was counted already, or the item was marked and not played again since). A
    /// person's mark is no play. `before`: the stored state (nil: none yet).
    public func recordsPlay(before: (watched: Bool, progress: Int)?, duration: Int?) -> Bool {
        guard case .position = self, outcome(duration: duration).watched == true else { return false }
        guard let before else { return true }
        return !(before.watched && before.progress == 0)
    }

    /// Refuses a negative number of seconds, with the line a person sees.
    public func validated() throws(LibraryError) -> WatchUpdate {
        guard seconds >= 0 else { throw .invalid("progress must be 0 or more seconds (got \(seconds))") }
        return self
    }
}
