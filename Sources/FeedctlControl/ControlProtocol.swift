import Foundation

// The daemon's control protocol: one JSON object per line over the Unix socket (README,
// "Control protocol"). Requests carry an `id` that the response echoes; `subscribe` turns the
// connection into an event stream.

package struct ControlRequest: Codable, Sendable {
    package var id: Int?
    package var cmd: String
    /// play / queue_add: a library item id, a URL or an absolute file path; chapter: next, prev or N.
    package var target: String?
    /// play: ignore saved progress.
    package var fromStart: Bool?
    /// seek: relative seconds (+15, -15).
    package var offset: Double?
    /// seek: absolute seconds.
    package var position: Double?
    /// volume: 0–1.
    package var value: Double?
    /// sleep: seconds from now, or nil with `sleepMode`.
    package var seconds: Double?
    /// sleep: "end-of-item" or "off".
    package var sleepMode: String?

    package enum CodingKeys: String, CodingKey {
        case id, cmd, target, offset, position, value, seconds
        case fromStart = "from_start"
        case sleepMode = "mode"
    }

    package init(id: Int? = nil, cmd: String, target: String? = nil, fromStart: Bool? = nil,
         offset: Double? = nil, position: Double? = nil, value: Double? = nil,
         seconds: Double? = nil, sleepMode: String? = nil) {
        self.id = id; self.cmd = cmd; self.target = target; self.fromStart = fromStart
        self.offset = offset; self.position = position; self.value = value
        self.seconds = seconds; self.sleepMode = sleepMode
    }
}

/// `status --json`'s contract: every key always present, null when unknown.
package struct PlayerStatus: Codable, Sendable, Equatable {
    package var status: String = "stopped"
    package var position: Double = 0
    package var duration: Double?
    package var title: String?
    package var artist: String?
    package var itemID: Int64?
    package var url: String?
    package var volume: Double = 1
    package var rate: Double = 1
    package var chapter: String?
    package var error: String?
    /// When the sleep timer stops playback (Unix seconds); for `end-of-item`, the item's expected end.
    package var sleepAt: Int64?

    package enum CodingKeys: String, CodingKey {
        case status, position, duration, title, artist, url, volume, rate, chapter, error
        case itemID = "item_id"
        case sleepAt = "sleep_at"
    }

    package func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(status, forKey: .status)
        try c.encode((position * 1000).rounded() / 1000, forKey: .position)
        try c.encode(duration.map { ($0 * 1000).rounded() / 1000 }, forKey: .duration)
        try c.encode(title, forKey: .title)
        try c.encode(artist, forKey: .artist)
        try c.encode(itemID, forKey: .itemID)
        try c.encode(url, forKey: .url)
        try c.encode(volume, forKey: .volume)
        try c.encode(rate, forKey: .rate)
        try c.encode(chapter, forKey: .chapter)
        try c.encode(error, forKey: .error)
        try c.encode(sleepAt, forKey: .sleepAt)
    }

    package init(status: String = "stopped", position: Double = 0, duration: Double? = nil, title: String? = nil, artist: String? = nil, itemID: Int64? = nil, url: String? = nil, volume: Double = 1, rate: Double = 1, chapter: String? = nil, error: String? = nil, sleepAt: Int64? = nil) {
        self.status = status; self.position = position; self.duration = duration; self.title = title; self.artist = artist; self.itemID = itemID; self.url = url; self.volume = volume; self.rate = rate; self.chapter = chapter; self.error = error; self.sleepAt = sleepAt
    }
}

package struct QueueEntry: Codable, Sendable, Equatable {
    package var target: String
    package var title: String?
    package var itemID: Int64?
    package enum CodingKeys: String, CodingKey { case target, title; case itemID = "item_id" }
    package func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(target, forKey: .target)
        try c.encode(title, forKey: .title)
        try c.encode(itemID, forKey: .itemID)
    }

    package init(target: String, title: String? = nil, itemID: Int64? = nil) {
        self.target = target; self.title = title; self.itemID = itemID
    }
}

package struct ControlResponse: Codable, Sendable {
    package var id: Int?
    package var ok: Bool
    package var error: String?
    package var status: PlayerStatus?
    package var queue: [QueueEntry]?
    /// A short human confirmation ("queued: …").
    package var message: String?
    /// `chapters` and `chapter`: the current item's chapters.
    package var chapters: ChaptersPayload?

    package init(id: Int? = nil, ok: Bool, error: String? = nil, status: PlayerStatus? = nil, queue: [QueueEntry]? = nil, message: String? = nil, chapters: ChaptersPayload? = nil) {
        self.id = id; self.ok = ok; self.error = error; self.status = status; self.queue = queue; self.message = message; self.chapters = chapters
    }
}

/// `chapters --json`: where the chapters come from, which one is playing, and the list.
package struct ChaptersPayload: Codable, Sendable, Equatable {
    package struct Entry: Codable, Sendable, Equatable {
        /// 1-based, what `chapter N` takes.
        package var index: Int
        package var start: Double
        package var end: Double?
        package var title: String

        package func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(index, forKey: .index)
            try c.encode((start * 1000).rounded() / 1000, forKey: .start)
            try c.encode(end.map { ($0 * 1000).rounded() / 1000 }, forKey: .end)
            try c.encode(title, forKey: .title)
        }
    
        package init(index: Int, start: Double, end: Double? = nil, title: String) {
            self.index = index; self.start = start; self.end = end; self.title = title
        }
}
    /// "podcast" (the feed's chapters file), "embedded" (in the media file), or null (none).
    package var source: String?
    /// The index of the chapter playing now, null before the first or without chapters.
    package var current: Int?
    package var chapters: [Entry]

    package func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(source, forKey: .source)
        try c.encode(current, forKey: .current)
        try c.encode(chapters, forKey: .chapters)
    }

    package init(source: String? = nil, current: Int? = nil, chapters: [Entry]) {
        self.source = source; self.current = current; self.chapters = chapters
    }
}

/// One line of the event stream a `subscribe` request starts.
package struct ControlEvent: Codable, Sendable {
    /// tick | status | metadata | seeked | volume | error
    package var event: String
    package var status: PlayerStatus

    package init(event: String, status: PlayerStatus) {
        self.event = event; self.status = status
    }
}
