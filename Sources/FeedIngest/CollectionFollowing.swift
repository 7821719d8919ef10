import FeedModel
import HTTPFetch
import LibraryStore

/// Following a published collection by its link (`feedctl follow`, `POST /api/followed-collections`):
/// a collection this library published is followed where it is (read live); another server's is
/// read once through its JSON, within the follower's reach and the sync's limits, and kept as it
/// said (`FollowRefresher` reads it again at each sync).
public struct CollectionFollower: Sendable {
    public let store: any SharingStore
    /// What the follower may make the library fetch (the owner's CLI any address; a server's
    /// users what the server allows).
    public let reach: AddressReach
    public let fetcher: Fetcher
    public let limits: SyncLimits

    public init(store: any SharingStore, reach: AddressReach, fetcher: Fetcher = .shared, limits: SyncLimits = SyncLimits()) {
        self.store = store; self.reach = reach; self.fetcher = fetcher; self.limits = limits
    }

    /// Follows the collection `link` names. A link whose token this library published is this
    /// library's, whatever host name it carries (a server may be reached by several).
    public func follow(_ link: SharedCollectionLink, now: Int64) async throws(FollowError) -> FollowedCollection {
        do throws(LibraryError) {
            return try await store.follow(token: link.token, url: link.text, now: now)
        } catch .noSharedCollection {
            // Not this library's: another server's, if the link names one.
        } catch {
            throw .library(error)
        }
        guard let source = link.jsonURL else {
            throw .library(.invalid("no collection is published at \(link.text) here; a link to another server's collection "
                                    + "is a whole URL (https://…/shared/TOKEN)"))
        }
        let collection: SharedCollection
        switch await RemoteCollection.read(source, reach: reach, fetcher: fetcher, limits: limits) {
        case .collection(let read): collection = read
        case .withdrawn: throw .library(.withdrawnCollection)
        case .failed(let why, let notFound): throw notFound ? .library(.noSharedCollection) : .unreadable(why)
        }
        do throws(LibraryError) {
            return try await store.follow(remote: NewRemoteFollow(url: link.text, sourceURL: source, reach: reach, collection: collection),
                                          now: now)
        } catch {
            throw .library(error)
        }
    }
}

/// Reads followed collections of other servers again (a sync, a worker's round, the daemon's
/// scheduler): each one's JSON fetched within its follower's reach (narrowed to this refresher's)
/// and the sync's limits, all at once (the fetcher bounds how many transfers run), and each
/// outcome stored on its own, so one bad server costs the others nothing. A 410 withdraws the
/// follow for good.
public struct FollowRefresher: Sendable {
    public let store: any SharedCollectionStore
    public let reach: AddressReach
    public let fetcher: Fetcher
    public let limits: SyncLimits

    public init(store: any SharedCollectionStore, reach: AddressReach, fetcher: Fetcher = .shared, limits: SyncLimits = SyncLimits()) {
        self.store = store; self.reach = reach; self.fetcher = fetcher; self.limits = limits
    }

    /// What a refresh did.
    public struct Report: Sendable, Equatable {
        /// Followed collections read (changed or not).
        public var read = 0
        public var withdrawn = 0
        /// One line each: the URL, then why.
        public var errors: [String] = []
        public var isEmpty: Bool { read == 0 && withdrawn == 0 && errors.isEmpty }
        public init() {}
        /// `followed collections: 3 read, 1 withdrawn, 1 failed`.
        public var summary: String { "followed collections: \(read) read, \(withdrawn) withdrawn, \(errors.count) failed" }
    }

    /// Refreshes every user's followed collections that are due, at most `limit`, each claimed
    /// first (another refresher skips it).
    public func refreshDue(now: Int64, limit: Int = 1_000, lease: PollLease = .standard) async -> Report {
        do throws(LibraryError) {
            return await refresh(try await store.claimDueRemoteFollows(now: now, limit: limit, lease: lease), now: now)
        } catch {
            var report = Report()
            report.errors.append("followed collections: cannot read which are due: \(error.description)")
            return report
        }
    }

    /// Refreshes `follows` now, due or not (a user's sync of their own).
    public func refresh(_ follows: [RemoteFollow], now: Int64) async -> Report {
        let (reach, fetcher, limits, store) = (reach, fetcher, limits, store)
        return await withTaskGroup(of: Report.self) { group in
            for follow in follows {
                group.addTask {
                    var report = Report()
                    let outcome: RemoteFollowRefresh.Outcome
                    switch await RemoteCollection.read(follow.sourceURL, reach: follow.reach.narrowed(to: reach), fetcher: fetcher, limits: limits) {
                    case .collection(let collection): outcome = .collection(collection); report.read = 1
                    case .withdrawn: outcome = .withdrawn; report.withdrawn = 1
                    case .failed(let why, _): outcome = .failed(why); report.errors.append(why)
                    }
                    // In a task of its own: a cancelled refresh still stores what it read.
                    let stored = await Task { () -> LibraryError? in
                        do throws(LibraryError) {
                            try await store.apply(RemoteFollowRefresh(followID: follow.id, outcome: outcome), now: now)
                            return nil
                        } catch {
                            return error
                        }
                    }.value
                    if let stored { report.errors.append("\(follow.sourceURL): not stored: \(stored.description)") }
                    return report
                }
            }
            var total = Report()
            for await report in group {
                total.read += report.read
                total.withdrawn += report.withdrawn
                total.errors += report.errors
            }
            return total
        }
    }
}

/// One read of another server's published collection.
enum RemoteCollection {
    enum Outcome: Sendable {
        case collection(SharedCollection)
        case withdrawn
        /// `notFound`: the server answered 404 (no such collection there).
        case failed(String, notFound: Bool)
    }

    static func read(_ url: String, reach: AddressReach, fetcher: Fetcher, limits: SyncLimits) async -> Outcome {
        let response: FetchResponse
        do {
            response = try await fetcher.reaching(reach).fetch(limits.request(url))
        } catch {
            if case .http(let status) = error.kind {
                if status == 410 { return .withdrawn }
                return .failed(error.description, notFound: status == 404)
            }
            return .failed(error.description, notFound: false)
        }
        do throws(FollowError) {
            return .collection(try SharedCollectionDocument.read(response.body, from: url))
        } catch {
            return .failed(error.description, notFound: false)
        }
    }
}
