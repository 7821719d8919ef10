import FeedModel

/// One play, kept even after its channel is removed (`history --json`).
public struct HistoryEntry: Sendable, Equatable, Encodable {
    public var id: Int64
    /// The library item, or nil once its channel was removed.
    @Nullable public var item: Int64?
    public var title: String
    public var channel: String
    @Nullable public var url: String?
    /// Where playback was when the entry was written, if known.
    @Nullable public var position: Int?
    public var playedAt: Int64

    public init(id: Int64, item: Int64?, title: String, channel: String, url: String?, position: Int?, playedAt: Int64) {
        self.id = id; self.item = item; self.title = title; self.channel = channel; self.url = url
        self.position = position; self.playedAt = playedAt
    }

    enum CodingKeys: String, CodingKey { case id, item, title, channel, url, position, playedAt = "played_at" }
}
