/// What one channel's poll came to (`sync --json`'s per-channel object).
public struct ChannelSyncResult: Sendable, Equatable, Encodable {
    public enum Status: String, Sendable, Encodable { case updated, unchanged, error }
    public var id: Int64
    public var name: String
    public var status: Status
    public var newItems: Int
    public var error: String?
    public var seconds: Double

    enum CodingKeys: String, CodingKey { case id, status, newItems = "new_items", error, seconds }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(status, forKey: .status)
        try c.encode(newItems, forKey: .newItems)
        try c.encode(error, forKey: .error)
        try c.encode((seconds * 1000).rounded() / 1000, forKey: .seconds)
    }
}

/// A whole sync (`sync --json`).
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
