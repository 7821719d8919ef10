import FeedModel

/// What the player daemon is asked to do: the CLI, MPRIS and (later) the HTTP API all speak it.
/// Decoded from the wire once, at the socket's edge (`ControlRequest.command()`).
public enum PlayerCommand: Sendable, Equatable {
    case status
    /// Plays a target, resuming at its saved progress unless `fromStart`.
    case play(PlayTarget, fromStart: Bool)
    case pause, resume, toggle, stop
    case seek(SeekTarget)
    case volume(PlayerVolume)
    /// Changes the volume by this much, clamped to `PlayerVolume.range`.
    case changeVolume(by: PlayerVolume.Change)
    /// Adds targets to the up-next queue, all or none (each is checked first); with `next`, in
    /// front (to play after the current one).
    case queueAdd([PlayTarget], next: Bool)
    /// Removes the entry at a 1-based position.
    case queueRemove(Int)
    /// Moves the entry at a 1-based position to another.
    case queueMove(from: Int, to: Int)
    case queueList, queueClear
    /// Plays the next queued item.
    case next
    case sleep(SleepSetting)
    /// Sets the speed (a library item's channel remembers it); nil only reports the status.
    case speed(Double?)
    /// The playing item's chapters.
    case chapters
    /// Seeks to a chapter's start.
    case chapter(ChapterTarget)
    /// Turns the connection into an event stream after the reply.
    case subscribe
    case ping
    /// Saves progress and stops the daemon.
    case quit
}

/// What to play: a library item, a media URL, or something the user named on the command line
/// (a file; anything else is refused when it is opened).
public enum PlayTarget: Sendable, Equatable, CustomStringConvertible {
    case item(Int64)
    /// An http(s) URL.
    case url(String)
    /// An absolute path (the CLI makes a relative one absolute), or what the user typed.
    case local(String)

    /// The `target` field as the protocol reads it: an integer is an item id; an http(s) URL is a
    /// URL; anything else the user named.
    public init(_ text: String) {
        if let id = Int64(text) {
            self = .item(id)
        } else if let colon = text.firstIndex(of: ":"), text[colon...].hasPrefix("://"),
                  ["http", "https"].contains(text[..<colon].lowercased()) {
            self = .url(text)
        } else {
            self = .local(text)
        }
    }

    /// The `target` field.
    public var description: String {
        switch self {
        case .item(let id): String(id)
        case .url(let text), .local(let text): text
        }
    }
}

public enum SleepSetting: Sendable, Equatable {
    /// Stop after this many seconds, fading out over the last ten.
    case after(seconds: Double)
    /// Stop at the end of the current item instead of advancing the queue.
    case endOfItem
    case off
}

public enum ChapterTarget: Sendable, Equatable {
    case next, previous
    /// 1-based, as `chapters` lists them.
    case number(Int)
}
