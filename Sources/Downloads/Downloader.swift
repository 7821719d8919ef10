import Foundation
import HTTPFetch
import LibraryStore
#if canImport(Glibc)
import Glibc
#endif

/// Downloads episodes' enclosures into a `DownloadStore`, resumably: a transfer streams into
/// `<name>.part` (continued with an HTTP Range request next time if it is cut), and a complete
/// transfer is renamed to its final name. The server decides what complete means (its
/// Content-Length, or a 206's Content-Range total); the feed's enclosure length is only a hint
/// for progress, since feeds announce stale lengths and dynamic ad insertion changes the size
/// per request. A failed or interrupted download leaves only the `.part`.
///
/// Thread-safe; at most `concurrency` downloads run at once. The transfers run on the
/// fetcher's thread (see `Fetcher`).
public final class Downloader: Sendable {
    public let catalog: any DownloadCatalog
    public let store: DownloadStore
    public let concurrency: Int
    /// The largest file accepted.
    public let maxBytes: Int
    private let fetcher: Fetcher
    private let totalTimeout: Double
    private let stallTimeout: Double

    /// Downloads the items `catalog` knows into `store`. A transfer that sends nothing for
    /// `stallTimeout` seconds, or lasts `totalTimeout`, fails and can be resumed.
    public init(catalog: any DownloadCatalog, store: DownloadStore, fetcher: Fetcher = .shared, concurrency: Int = 3,
                maxBytes: Int = 8_000_000_000, totalTimeout: Double = 4 * 3600, stallTimeout: Double = 60) {
        self.catalog = catalog
        self.store = store
        self.fetcher = fetcher
        self.concurrency = max(1, concurrency)
        self.maxBytes = maxBytes
        self.totalTimeout = totalTimeout
        self.stallTimeout = stallTimeout
    }

    // MARK: many items

    /// Downloads the items with these ids (duplicates once), at most `concurrency` at a time.
    /// One failure doesn't stop the others. Results are in the order of `ids`.
    public func download(ids: [Int64], events: (@Sendable (DownloadEvent) -> Void)? = nil) async -> [DownloadResult] {
        var seen = Set<Int64>()
        let unique = ids.filter { seen.insert($0).inserted }
        let items: [DownloadItem]
        do {
            items = try await catalog.downloadItems(ids: unique)
        } catch {
            let failed = unique.map { DownloadResult(id: $0, title: nil, channel: nil, status: .failed, error: error.description) }
            failed.forEach { events?(.finished($0)) }
            return failed
        }
        let byID = Dictionary(items.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let found = await run(unique.compactMap { byID[$0] }, events: events)
        return Self.inOrder(unique, found, events: events)
    }

    /// The items with these ids (duplicates once), in order, if every one is in the library and
    /// has an enclosure; otherwise the errors, one per bad id, and nothing is downloaded. What
    /// `download ITEM…` checks before it starts a transfer (one rule for multi-id commands: all
    /// ids are checked first, then all or nothing is done).
    public func check(ids: [Int64]) async throws(DownloadError) -> Result<[DownloadItem], DownloadCheckFailure> {
        var seen = Set<Int64>()
        let unique = ids.filter { seen.insert($0).inserted }
        let items: [DownloadItem]
        do {
            items = try await catalog.downloadItems(ids: unique)
        } catch {
            throw DownloadError(itemID: nil, kind: .library, reason: error.description)
        }
        let byID = Dictionary(items.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        var bad: [DownloadError] = []
        for id in unique {
            guard let item = byID[id] else {
                bad.append(DownloadError(itemID: id, kind: .noItem, reason: "not in the library"))
                continue
            }
            if item.enclosureURL?.isEmpty ?? true { bad.append(Self.noEnclosure(item)) }
        }
        return bad.isEmpty ? .success(unique.compactMap { byID[$0] }) : .failure(DownloadCheckFailure(errors: bad))
    }

    /// Downloads items `check(ids:)` returned, at most `concurrency` at a time; results in their order.
    public func download(_ items: [DownloadItem], events: (@Sendable (DownloadEvent) -> Void)? = nil) async -> [DownloadResult] {
        await run(items, events: events)
    }

    private static func inOrder(_ unique: [Int64], _ found: [DownloadResult],
                                events: (@Sendable (DownloadEvent) -> Void)?) -> [DownloadResult] {
        let resultByID = Dictionary(found.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        return unique.map { id in
            if let result = resultByID[id] { return result }
            let missing = DownloadResult(id: id, title: nil, channel: nil, status: .failed,
                                         error: DownloadError(itemID: id, kind: .noItem, reason: "not in the library").description)
            events?(.finished(missing))
            return missing
        }
    }

    /// Keeps the newest `keep` episodes (with enclosures) of every active podcast channel
    /// downloaded: fetches the missing ones. With `prune`, deletes those channels' other
    /// downloads (files of items no longer in the library are left alone).
    public func auto(keep: Int, prune: Bool = false,
                     events: (@Sendable (DownloadEvent) -> Void)? = nil) async throws(DownloadError) -> AutoDownloadReport {
        guard keep >= 0 else { throw DownloadError(itemID: nil, kind: .library, reason: "the number of episodes to keep must be 0 or more (got \(keep))") }
        try await store.adoptLegacy(in: catalog)
        var plans: [AutoDownloadReport.ChannelPlan] = []
        var wanted: [DownloadItem] = []
        do {
            for channel in try await catalog.allChannels() where channel.platform == .podcast && channel.active {
                let newest = try await catalog.newestEpisodes(channelID: channel.id, limit: keep)
                plans.append(.init(id: channel.id, name: channel.name, items: newest.map(\.id)))
                wanted += newest
            }
        } catch {
            throw DownloadError(itemID: nil, kind: .library, reason: error.description)
        }
        var results = await run(wanted, events: events)
        var pruned: [DownloadEntry] = []
        if prune {
            let keepIDs = Set(wanted.map(\.id))
            let channelIDs = Set(plans.map(\.id))
            let downloaded = Array(Set(try store.entries().filter { !$0.legacy }.map(\.itemID))).sorted()
            let owners: [DownloadItem]
            do {
                owners = try await catalog.downloadItems(ids: downloaded)
            } catch {
                throw DownloadError(itemID: nil, kind: .library, reason: error.description)
            }
            for owner in owners where channelIDs.contains(owner.channelID) && !keepIDs.contains(owner.id) {
                do {
                    pruned += try store.remove(item: owner.id)
                } catch {
                    results.append(DownloadResult(id: owner.id, title: owner.title, channel: owner.channel,
                                                  status: .failed, error: "can't prune: \(error.description)"))
                }
            }
        }
        return AutoDownloadReport(keep: keep, channels: plans, results: results, pruned: pruned)
    }

    /// Deletes the downloads of items marked watched before `time` (Unix seconds), the config's
    /// `downloads.delete_played_after`. Returns what was deleted; a file that could not be
    /// deleted is in the errors.
    public func removeWatched(before time: Int64) async throws(DownloadError) -> (removed: [DownloadEntry], errors: [DownloadError]) {
        let downloaded = Array(Set(try store.entries().filter { !$0.legacy }.map(\.itemID))).sorted()
        let played: [Int64]
        do {
            played = try await catalog.watched(before: time, among: downloaded)
        } catch {
            throw DownloadError(itemID: nil, kind: .library, reason: error.description)
        }
        return store.remove(items: played)
    }

    /// Runs `download(_:)` over `items`, `concurrency` at a time, results in the same order.
    private func run(_ items: [DownloadItem], events: (@Sendable (DownloadEvent) -> Void)?) async -> [DownloadResult] {
        await withTaskGroup(of: (Int, DownloadResult).self) { group in
            var results = [DownloadResult?](repeating: nil, count: items.count)
            var next = 0
            func start(_ index: Int) -> @Sendable () async -> (Int, DownloadResult) {
                let item = items[index]
                return { [self] in (index, await self.result(for: item, events: events)) }
            }
            while next < min(concurrency, items.count) {
                group.addTask(operation: start(next))
                next += 1
            }
            for await (index, result) in group {
                results[index] = result
                if next < items.count {
                    group.addTask(operation: start(next))
                    next += 1
                }
            }
            return results.compactMap { $0 }
        }
    }

    private func result(for item: DownloadItem, events: (@Sendable (DownloadEvent) -> Void)?) async -> DownloadResult {
        events?(.started(item))
        let result: DownloadResult
        do {
            let (entry, fetched) = try await download(item) { received, total in
                events?(.progress(itemID: item.id, received: received, total: total))
            }
            result = DownloadResult(id: item.id, title: item.title, channel: item.channel,
                                    status: fetched ? .downloaded : .already, path: entry.path, bytes: entry.bytes)
        } catch {
            result = DownloadResult(id: item.id, title: item.title, channel: item.channel, status: .failed,
                                    error: error.description)
        }
        events?(.finished(result))
        return result
    }

    // MARK: one item

    /// Downloads one item's enclosure, resuming its `.part` if there is one. Returns the
    /// finished file, and whether anything was fetched (false when it was already there).
    /// `progress` gets (bytes in the file, expected total) on the fetch thread.
    public func download(_ item: DownloadItem, progress: (@Sendable (_ received: Int64, _ total: Int64?) -> Void)? = nil)
        async throws(DownloadError) -> (entry: DownloadEntry, fetched: Bool) {
        guard let url = item.enclosureURL, !url.isEmpty else { throw Self.noEnclosure(item) }
        try store.createDirectory()
        try store.adopt(item)
        if let done = try store.entries(item: item.id).first(where: \.complete) { return (done, false) }
        // An earlier attempt's .part keeps its name (the title may have changed since).
        let part = try store.entries(item: item.id).first { !$0.complete }?.path
            ?? store.path(DownloadName.make(id: item.id, title: item.title, enclosureURL: url, type: item.enclosureType)
                          + DownloadName.partSuffix)
        guard let lock = try PartLock(path: part, itemID: item.id, create: true) else {
            throw DownloadError(itemID: item.id, kind: .fileSystem, reason: "can't create \(part)")
        }
        // Another process may have finished it between our look and the lock.
        if let done = try store.entries(item: item.id).first(where: \.complete) {
            if lock.isCurrent && Self.size(of: part) == 0 { unlink(part) }  // the empty .part our open created
            return (done, false)
        }
        guard lock.isCurrent else {
            throw DownloadError(itemID: item.id, kind: .busy, reason: "\(part) changed while starting; try again")
        }

        let response = try await fetch(url, into: part, item: item, progress: progress)
        // The transfer completed. Only the server's own announcement can still say it fell short
        // (or that the `.part` we resumed was not a prefix of this file); the feed's length cannot.
        let size = Self.size(of: part)
        if let announced = Self.announcedSize(response), size != announced {
            if size > announced { unlink(part) }  // not a prefix: resuming it would only repeat this
            let what = size > announced ? "the file was discarded" : "the rest downloads next time"
            throw DownloadError(itemID: item.id, kind: .sizeMismatch,
                                reason: "\(url): got \(size) bytes, the server announced \(announced); \(what)")
        }
        let final = String(part.dropLast(DownloadName.partSuffix.count))
        guard lock.sync(), rename(part, final) == 0 else {
            throw DownloadError(itemID: item.id, kind: .fileSystem, reason: "can't finish \(final): \(String(cString: strerror(errno)))")
        }
        return (DownloadEntry(itemID: item.id, path: final, bytes: size, complete: true), true)
    }

    private func fetch(_ url: String, into part: String, item: DownloadItem,
                       progress: (@Sendable (Int64, Int64?) -> Void)?) async throws(DownloadError) -> FetchResponse {
        let request = FetchRequest(url: url, maxBytes: maxBytes, connectTimeout: 15, totalTimeout: totalTimeout,
                                   stallTimeout: stallTimeout, maxRedirects: 10)
        // The feed's length stands in for the total only while the server has announced none.
        let hint = item.enclosureLength
        let report = progress.map { report in { @Sendable (received: Int64, total: Int64?) in report(received, total ?? hint) } }
        do {
            // Within its channel's reach: an enclosure of a feed a server user follows is fetched
            // from public addresses only (`AddressReach`).
            return try await fetcher.reaching(item.reach).download(request, to: part, resume: true, progress: report)
        } catch {
            if Self.size(of: part) == 0 { unlink(part) }  // nothing to resume: leave no clutter
            throw DownloadError(itemID: item.id, kind: .fetch(error.kind), reason: error.description)
        }
    }

    static func noEnclosure(_ item: DownloadItem) -> DownloadError {
        DownloadError(itemID: item.id, kind: .noEnclosure,
                      reason: "\"\(item.title)\" has no enclosure to download (only podcast episodes can be downloaded)")
    }

    /// The whole file's size as the response announced it: Content-Length of a 200 (unless
    /// the body was compressed in transit), the total of a 206's or 416's Content-Range.
    static func announcedSize(_ response: FetchResponse) -> Int64? {
        switch response.status {
        case 200:
            if let encoding = response.headers["content-encoding"], encoding.lowercased() != "identity" { return nil }
            return response.headers["content-length"].flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
        case 206, 416:
            guard let range = response.headers["content-range"], let slash = range.lastIndex(of: "/") else { return nil }
            return Int64(range[range.index(after: slash)...].trimmingCharacters(in: .whitespaces))
        default:
            return nil
        }
    }

    static func size(of path: String) -> Int64 {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : 0
    }
}
