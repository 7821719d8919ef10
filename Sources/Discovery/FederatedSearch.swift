import FeedModel
import LibraryStore

/// Asks every provider at once, each bounded by its own timeout (and, inside, its size cap),
/// and merges what came back: interleaved across providers (one result of each in turn, so
/// every platform is seen in the first lines), de-duplicated (the same podcast from iTunes and
/// Podcast Index, a video the library also has), and marked `subscribed` when the user already
/// follows its channel. A provider that fails or times out costs the others nothing; it is
/// named with its reason in `failures`. The backend's `FederatedSearchService`.
public struct FederatedSearch: Sendable {
    public let providers: [any DiscoveryProvider]
    /// The user's channels, for `subscribed` (nil: nothing is marked but library results).
    let channels: (any ChannelStore)?

    public init(providers: [any DiscoveryProvider], channels: (any ChannelStore)?) {
        self.providers = providers; self.channels = channels
    }

    public struct Outcome: Sendable {
        public var provider: String
        public var results: [DiscoveryResult]
        public var milliseconds: Int
        /// Nil on success.
        public var failure: DiscoveryError?
    }

    public struct Answer: Sendable {
        public var request: DiscoveryRequest
        /// Interleaved, de-duplicated, marked.
        public var results: [DiscoveryResult]
        /// One per provider asked, in the providers' order, each with its own results (marked too).
        public var outcomes: [Outcome]
        public var milliseconds: Int
        public var failed: [Outcome] { outcomes.filter { $0.failure != nil } }
    }

    public func search(_ request: DiscoveryRequest) async -> Answer {
        let clock = ContinuousClock()
        let start = clock.now
        let asked = providers.filter { $0.answers(request.kind) }
        // The subscriptions are read while the providers run.
        async let index: SubscriptionIndex? = { () async -> SubscriptionIndex? in
            guard let channels else { return nil }
            return (try? await channels.allChannels()).map(SubscriptionIndex.init)
        }()
        var outcomes = await withTaskGroup(of: (Int, Outcome).self) { group in
            for (position, provider) in asked.enumerated() {
                group.addTask { (position, await Self.run(provider, request)) }
            }
            var collected: [(Int, Outcome)] = []
            for await outcome in group { collected.append(outcome) }
            return collected.sorted { $0.0 < $1.0 }.map(\.1)
        }
        let subscriptions = await index
        for o in outcomes.indices {
            for r in outcomes[o].results.indices where !outcomes[o].results[r].subscribed {
                outcomes[o].results[r].subscribed = subscriptions?.contains(outcomes[o].results[r]) ?? false
            }
        }
        let merged = Self.interleave(outcomes.map(\.results))
        return Answer(request: request, results: merged, outcomes: outcomes, milliseconds: Self.milliseconds(start.duration(to: clock.now)))
    }

    /// One provider's search under its timeout: whichever ends first, the search or the timer,
    /// and the other is cancelled (the provider's transfer or process stops).
    static func run(_ provider: any DiscoveryProvider, _ request: DiscoveryRequest) async -> Outcome {
        let clock = ContinuousClock()
        let start = clock.now
        let timeout = provider.limits.timeout
        let result = await withTaskGroup(of: Result<[DiscoveryResult], DiscoveryError>?.self) { group in
            group.addTask {
                do throws(DiscoveryError) { return .success(try await provider.search(request)) } catch { return .failure(error) }
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(timeout))
                return Task.isCancelled ? nil : .failure(.timedOut(after: timeout))
            }
            var first: Result<[DiscoveryResult], DiscoveryError>?
            while first == nil, let next = await group.next() { first = next }
            group.cancelAll()
            return first ?? .failure(.timedOut(after: timeout))
        }
        let elapsed = milliseconds(start.duration(to: clock.now))
        switch result {
        case .success(let results):
            return Outcome(provider: provider.name, results: Array(results.prefix(request.limit)), milliseconds: elapsed, failure: nil)
        case .failure(let error):
            return Outcome(provider: provider.name, results: [], milliseconds: elapsed, failure: error)
        }
    }

    /// Round-robin across the lists (the first of each, then the second of each…); a result
    /// already taken is dropped, and what the later copy knows that the first does not (the
    /// library's id, that it is followed) is kept on the first.
    static func interleave(_ lists: [[DiscoveryResult]]) -> [DiscoveryResult] {
        var merged: [DiscoveryResult] = []
        var position: [String: Int] = [:]
        let rounds = lists.map(\.count).max() ?? 0
        for round in 0..<rounds {
            for list in lists where round < list.count {
                let result = list[round]
                if let at = position[result.identity] {
                    merged[at].subscribed = merged[at].subscribed || result.subscribed
                    merged[at].libraryItemID = merged[at].libraryItemID ?? result.libraryItemID
                    merged[at].feedURL = merged[at].feedURL ?? result.feedURL
                    continue
                }
                position[result.identity] = merged.count
                merged.append(result)
            }
        }
        return merged
    }

    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }
}
