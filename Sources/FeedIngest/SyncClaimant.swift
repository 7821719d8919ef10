import Foundation
import LibraryStore
import Synchronization

/// Who holds a sync claim (`SyncClaim`): one sync in one process, by pid, a random part (a pid
/// reused after a crash is another claimant) and a count. Claims stop two pollers, in this
/// process or another (the daemon, the server's scheduler and its API calls, a cron `sync`),
/// from fetching the same feed at once.
public enum SyncClaimant {
    private static let process = "pid \(ProcessInfo.processInfo.processIdentifier) \(UUID().uuidString.prefix(8))"
    private static let syncs = Atomic<Int>(0)

    /// A claimant of its own for one sync (or one scheduler round): two syncs in one process
    /// must not share a claim either.
    public static func next() -> String {
        "\(process) #\(syncs.add(1, ordering: .relaxed).newValue)"
    }
}

extension SyncStore {
    /// Releases what `claimant` still holds of `ids`, in a task of its own so that an interrupted
    /// (cancelled) sync still lets go of the channels it did not store. A failure is only
    /// logged by the caller's choice: the claims lapse anyway (`SyncClaim.claimSeconds`).
    public func releaseClaimsUninterrupted(_ ids: [Int64], claimant: String) async -> LibraryError? {
        await Task { () -> LibraryError? in
            do throws(LibraryError) { try await self.releaseClaims(ids, claimant: claimant); return nil } catch { return error }
        }.value
    }
}
