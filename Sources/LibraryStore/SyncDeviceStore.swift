/// The gpodder.net API's devices and subscription changes, for the acting user.
///
/// The sync clock: every change a client may pull (a subscription added or removed, whoever made
/// it; an episode action uploaded; watch state changed in feedctl) is stamped from one clock that
/// never goes back nor repeats (Unix seconds, moved on by one when two changes fall in the same
/// second). `since` is a reading of it; 0 is the beginning, so it returns everything.
public protocol SyncDeviceStore: Sendable {
    /// The user's devices, by id.
    func syncDevices() async throws(LibraryError) -> [SyncDevice]
    /// Creates device `id`, or updates what is given of its caption and type.
    /// `invalid` for an id gpodder.net would refuse (`SyncRule.validDeviceID`).
    func saveSyncDevice(id: String, caption: String?, type: SyncDeviceType?, now: Int64) async throws(LibraryError)
    /// The user's subscriptions added and removed after `since` (feed URLs; a URL is in one list
    /// at most, by its latest change). With `since` 0, every subscription and no removals.
    func subscriptionChanges(since: Int64) async throws(LibraryError) -> SubscriptionChanges
    /// The sync clock's last reading: what an upload answers as the next `since`.
    func syncClock() async throws(LibraryError) -> Int64
}
