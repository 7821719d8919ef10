import FeedModel

/// A place to look for things to follow. One file per provider; each runs on its own, bounded by
/// its `ProviderLimits`, and the federation (`FederatedSearch`) asks them all at once.
public protocol DiscoveryProvider: Sendable {
    /// Its name in results, timings and failures (`itunes`, `podcastindex`, `youtube`, `rumble`,
    /// `library`): the backend's platform id.
    var name: String { get }
    /// The platform whose things it finds; nil for the library, which holds all three.
    var platform: Platform? { get }
    var limits: ProviderLimits { get }
    /// Whether it can answer this kind of search at all (Podcast Index finds podcasts, not episodes).
    func answers(_ kind: DiscoveryRequest.Kind) -> Bool
    /// Its results, best first, at most `request.limit`. Cancellation (the timeout) must stop
    /// what it waits on: a transfer, a process.
    func search(_ request: DiscoveryRequest) async throws(DiscoveryError) -> [DiscoveryResult]
}

extension DiscoveryProvider {
    public func answers(_ kind: DiscoveryRequest.Kind) -> Bool { true }
}

/// A provider's bounds: how long it may take in all, and how large an answer it may send.
public struct ProviderLimits: Sendable, Equatable {
    public var timeout: Double
    public var maxBytes: Int
    public init(timeout: Double = DiscoveryRule.timeout, maxBytes: Int = DiscoveryRule.maxBytes) {
        self.timeout = timeout; self.maxBytes = maxBytes
    }
}
