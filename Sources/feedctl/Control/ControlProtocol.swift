import Foundation

// The daemon's control protocol: one JSON object per line over the Unix socket (README,
// "Control protocol"). Requests carry an `id` that the response echoes; `subscribe` turns the
// connection into an event stream.

struct ControlRequest: Codable, Sendable {
    var id: Int?
    var cmd: String
    /// play / queue_add: a library item id, a URL or an absolute file path.
    var target: String?
    /// play: ignore saved progress.
    var fromStart: Bool?
    /// seek: relative seconds (+15, -15).
    var offset: Double?
    /// seek: absolute seconds.
    var position: Double?
    /// volume: 0–1.
    var value: Double?
    /// sleep: seconds from now, or nil with `sleepMode`.
    var seconds: Double?
    /// sleep: "end-of-item" or "off".
    var sleepMode: String?

    enum CodingKeys: String, CodingKey {
        case id, cmd, target, offset, position, value, seconds
        case fromStart = "from_start"
        case sleepMode = "mode"
    }

    init(id: Int? = nil, cmd: String, target: String? = nil, fromStart: Bool? = nil,
         offset: Double? = nil, position: Double? = nil, value: Double? = nil,
         seconds: Double? = nil, sleepMode: String? = nil) {
        self.id = id; self.cmd = cmd; self.target = target; self.fromStart = fromStart
        self.offset = offset; self.position = position; self.value = value
        self.seconds = seconds; self.sleepMode = sleepMode
    }
}

/// `status --json`'s contract: every key always present, null when unknown.
struct PlayerStatus: Codable, Sendable, Equatable {
    var status: String = "stopped"
    var position: Double = 0
    var duration: Double?
    var title: String?
    var artist: String?
    var itemID: Int64?
    var url: String?
    var volume: Double = 1
    var rate: Double = 1
    var chapter: String?
    var error: String?
    /// When the sleep timer stops playback (Unix seconds); for `end-of-item`, the item's expected end.
    var sleepAt: Int64?

    enum CodingKeys: String, CodingKey {
        case status, position, duration, title, artist, url, volume, rate, chapter, error
        case itemID = "item_id"
        case sleepAt = "sleep_at"
    }

    func encode(to encoder: Encoder) throws {
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
}

struct QueueEntry: Codable, Sendable, Equatable {
    var target: String
    var title: String?
    var itemID: Int64?
    enum CodingKeys: String, CodingKey { case target, title; case itemID = "item_id" }
    func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(target, forKey: .target)
        try c.encode(title, forKey: .title)
        try c.encode(itemID, forKey: .itemID)
    }
}

struct ControlResponse: Codable, Sendable {
    var id: Int?
    var ok: Bool
    var error: String?
    var status: PlayerStatus?
    var queue: [QueueEntry]?
    /// A short human confirmation ("queued: …").
    var message: String?
}

/// One line of the event stream a `subscribe` request starts.
struct ControlEvent: Codable, Sendable {
    /// tick | status | metadata | seeked | volume | error
    var event: String
    var status: PlayerStatus
}
