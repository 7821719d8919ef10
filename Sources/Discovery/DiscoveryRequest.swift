import FeedModel

/// What to look for: the words, videos (and episodes) or channels (and podcasts), and how many
/// results each provider gives at most.
public struct DiscoveryRequest: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable { case videos, channels }

    public var query: String
    public var kind: Kind
    public var limit: Int

    public init(query: String, kind: Kind = .videos, limit: Int = DiscoveryRule.defaultPerProvider) {
        self.query = query; self.kind = kind; self.limit = limit
    }
}
