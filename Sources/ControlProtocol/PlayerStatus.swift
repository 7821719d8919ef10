import FeedModel

/// `status --json`'s contract (docs/cli.md, "Player JSON"): every key always present, null when unknown; seconds
/// to the millisecond.
public struct PlayerStatus: Codable, Sendable, Equatable {
    public enum State: String, Codable, Sendable { case playing, paused, stopped }

    public var status: State
    public var position: Double
    @Nullable public var duration: Double?
    @Nullable public var title: String?
    /// The channel.
    @Nullable public var artist: String?
    @Nullable public var itemID: Int64?
    @Nullable public var url: String?
    /// 0–1.
    public var volume: Double
    /// The speed.
    public var rate: Double
    /// The current chapter's title.
    @Nullable public var chapter: String?
    @Nullable public var error: String?
    /// When the sleep timer stops playback (Unix seconds); for `end-of-item`, the item's expected end.
    @Nullable public var sleepAt: Int64?

    enum CodingKeys: String, CodingKey {
        case status, position, duration, title, artist, url, volume, rate, chapter, error
        case itemID = "item_id"
        case sleepAt = "sleep_at"
    }

    public init(status: State = .stopped, position: Double = 0, duration: Double? = nil, title: String? = nil,
                artist: String? = nil, itemID: Int64? = nil, url: String? = nil, volume: Double = 1, rate: Double = 1,
                chapter: String? = nil, error: String? = nil, sleepAt: Int64? = nil) {
        self.status = status; self.position = Milliseconds.round(position); self.duration = duration.map(Milliseconds.round)
        self.title = title; self.artist = artist; self.itemID = itemID; self.url = url; self.volume = volume
        self.rate = rate; self.chapter = chapter; self.error = error; self.sleepAt = sleepAt
    }
}

/// One entry of the up-next queue.
public struct QueueEntry: Codable, Sendable, Equatable {
    /// What `queue add` was given.
    public var target: String
    @Nullable public var title: String?
    @Nullable public var itemID: Int64?

    enum CodingKeys: String, CodingKey { case target, title, itemID = "item_id" }

    public init(target: String, title: String? = nil, itemID: Int64? = nil) {
        self.target = target; self.title = title; self.itemID = itemID
    }
}

/// `chapters --json`: where the chapters come from, which one is playing, and the list.
public struct ChaptersPayload: Codable, Sendable, Equatable {
    public struct Entry: Codable, Sendable, Equatable {
        /// 1-based, what `chapter N` takes.
        public var index: Int
        public var start: Double
        @Nullable public var end: Double?
        public var title: String

        public init(index: Int, start: Double, end: Double? = nil, title: String) {
            self.index = index; self.start = Milliseconds.round(start); self.end = end.map(Milliseconds.round); self.title = title
        }
    }

    /// "podcast" (the feed's chapters file), "embedded" (in the media file), or null (none).
    @Nullable public var source: String?
    /// The index of the chapter playing now, null before the first or without chapters.
    @Nullable public var current: Int?
    public var chapters: [Entry]

    public init(source: String? = nil, current: Int? = nil, chapters: [Entry]) {
        self.source = source; self.current = current; self.chapters = chapters
    }
}

/// Seconds in the contracts carry milliseconds at most.
enum Milliseconds {
    static func round(_ seconds: Double) -> Double { seconds.isFinite ? (seconds * 1000).rounded() / 1000 : seconds }
}
