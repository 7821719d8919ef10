import FeedModel

/// What one channel's poll came to (`sync --json`'s per-channel object).
public struct ChannelSyncResult: Sendable, Equatable, Encodable {
    /// `busy`: another sync (another process, or another request in this one) is polling the
    /// channel right now; it was not fetched twice.
    public enum Status: String, Sendable, Encodable { case updated, unchanged, error, busy }
    public var id: Int64
    public var name: String
    public var status: Status
    public var newItems: Int
    @Nullable public var error: String?
    /// How long the poll took, to the millisecond.
    public var seconds: Double

    /// Polled and stored (changed or not).
    public var succeeded: Bool { status == .updated || status == .unchanged }

    public init(id: Int64, name: String, status: Status, newItems: Int, error: String?, seconds: Double) {
        self.id = id; self.name = name; self.status = status; self.newItems = newItems; self.error = error
        self.seconds = (seconds * 1000).rounded() / 1000
    }

    /// The name is for people (progress bars, summaries); the JSON contract carries the id.
    enum CodingKeys: String, CodingKey { case id, status, newItems = "new_items", error, seconds }
}

/// A whole sync (`sync --json`): the totals are written with the channels.
public struct SyncReport: Sendable, Equatable, Encodable {
    public var channels: [ChannelSyncResult]
    public var newItems: Int { channels.reduce(0) { $0 + $1.newItems } }
    public var errors: Int { channels.filter { $0.status == .error }.count }

    enum CodingKeys: String, CodingKey { case channels, newItems = "new_items", errors }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(channels, forKey: .channels)
        try c.encode(newItems, forKey: .newItems)
        try c.encode(errors, forKey: .errors)
    }
}
