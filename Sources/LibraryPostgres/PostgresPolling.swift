import FeedModel
import LibraryStore

// SCAFFOLD: every method here throws `notWritten` until the port of polling lands (claims with
// `FOR UPDATE SKIP LOCKED`; `apply` is the ingest's, releasing only its claimant's claims).
/// The library's polling (`PollStore`), which acts for no user.
public struct PostgresPolling: PollStore {
    let library: PostgresLibrary

    public func dueChannels(now: Int64) async throws(LibraryError) -> [Channel] { throw PostgresLibrary.notWritten(#function) }
    public func nextDue() async throws(LibraryError) -> Int64? { throw PostgresLibrary.notWritten(#function) }
    public func claimDueChannels(now: Int64, claimant: String, limit: Int, lease: PollLease) async throws(LibraryError) -> [Channel] {
        throw PostgresLibrary.notWritten(#function)
    }
    public func claimChannels(_ ids: [Int64], now: Int64, claimant: String, lease: PollLease) async throws(LibraryError) -> [Int64] {
        throw PostgresLibrary.notWritten(#function)
    }
    public func releaseClaims(_ ids: [Int64], claimant: String) async throws(LibraryError) { throw PostgresLibrary.notWritten(#function) }
    public func addressReach(feedURL: String) async throws(LibraryError) -> AddressReach? { throw PostgresLibrary.notWritten(#function) }
    public func apply(_ polls: [ChannelPoll], claimant: String?, now: Int64) async -> [Result<PollApplied, LibraryError>] {
        polls.map { _ in .failure(PostgresLibrary.notWritten(#function)) }
    }
}

extension PostgresLibrary {
    /// The library's polling, for no user (the same pool).
    public var polling: any PollStore { PostgresPolling(library: self) }
}
