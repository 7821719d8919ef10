import Foundation
import LibraryStore

/// Who holds a sync claim (`SyncClaim`): this process, by pid and a random part (a pid reused
/// after a crash is another claimant). Claims stop two pollers, in this process or another
/// (the daemon, the server, a cron `sync`), from fetching the same feed at once.
public enum SyncClaimant {
    public static let current = "pid \(ProcessInfo.processInfo.processIdentifier) \(UUID().uuidString.prefix(8))"
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
