import FeedModel

/// How a fetcher shares hosts and slots (the rules are `FetchLimits`; tests may pass others).
///
/// Why not libcurl's own per-host limit alone: a transfer libcurl holds back for a connection
/// (CURLMOPT_MAX_HOST_CONNECTIONS reached) waits inside the multi handle with its timeout
/// running, so a host whose connections are all held by slow bodies made every other feed on it
/// time out. The fetch loop applies the bound itself, in its own queue (where waiting costs no
/// timeout), and lets a transfer that turns out slow stop counting. libcurl's limit stays, set
/// to the hard bound that the loop never reaches, as a backstop.
public struct FetchBounds: Sendable, Equatable {
    public var connectionsPerHost: Int
    public var slowAfter: Double
    public var maxSlowTransfers: Int
    public var maxConnectionsPerHost: Int

    public init(connectionsPerHost: Int = FetchLimits.connectionsPerHost, slowAfter: Double = FetchLimits.slowAfter,
                maxSlowTransfers: Int = FetchLimits.maxSlowTransfers,
                maxConnectionsPerHost: Int = FetchLimits.maxConnectionsPerHost) {
        self.connectionsPerHost = max(1, connectionsPerHost)
        self.slowAfter = slowAfter.isFinite ? max(0.1, slowAfter) : FetchLimits.slowAfter
        self.maxSlowTransfers = max(0, maxSlowTransfers)
        self.maxConnectionsPerHost = max(self.connectionsPerHost, maxConnectionsPerHost)
    }

    public static let `default` = FetchBounds()
}

/// What the per-host bounds count by: scheme, host name and port of a URL, lowercased
/// (`https://Feeds.Example.com:443/x` → `https://feeds.example.com:443`). User info is dropped.
struct HostKey: Hashable {
    let value: String

    init(_ url: String) {
        let lower = url.lowercased()
        guard let sep = lower.range(of: "://") else {
            value = lower
            return
        }
        let scheme = lower[..<sep.lowerBound]
        var authority = lower[sep.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        value = "\(scheme)://\(authority)"
    }
}
