import FeedModel
import LibraryStore

// SCAFFOLD: every method here throws `notWritten` until its port from LibrarySQLite lands;
// this file is replaced whole by the port of channels and subscriptions, the ingest (apply), chapters files, the download catalog
// (polling, for no user: PostgresPolling.swift).
extension PostgresLibrary {
    public func channel(id: Int64) async throws(LibraryError) -> Channel { throw Self.notWritten(#function) }
    public func channel(feedURL: String) async throws(LibraryError) -> Channel? { throw Self.notWritten(#function) }
    public func allChannels() async throws(LibraryError) -> [Channel] { throw Self.notWritten(#function) }
    public func channelSummaries() async throws(LibraryError) -> [ChannelSummary] { throw Self.notWritten(#function) }
    public func channelSummary(id: Int64) async throws(LibraryError) -> ChannelSummary { throw Self.notWritten(#function) }
    public func subscriptions(_ query: SubscriptionQuery) async throws(LibraryError) -> SubscriptionPage { throw Self.notWritten(#function) }
    public func removeChannel(id: Int64) async throws(LibraryError) -> ChannelRemoval { throw Self.notWritten(#function) }
    public func setActive(channelID: Int64, _ active: Bool) async throws(LibraryError) { throw Self.notWritten(#function) }
    public func setSpeed(channelID: Int64, _ speed: Double) async throws(LibraryError) { throw Self.notWritten(#function) }
    public func apply(_ polls: [Poll], now: Int64) async -> [Result<PollApplied, LibraryError>] { polls.map { _ in .failure(Self.notWritten(#function)) } }
    public func chaptersURL(itemID: Int64) async throws(LibraryError) -> String? { throw Self.notWritten(#function) }
    public func cachedChapters(itemID: Int64, url: String) async throws(LibraryError) -> [UInt8]? { throw Self.notWritten(#function) }
    public func cacheChapters(itemID: Int64, url: String, body: [UInt8], now: Int64) async throws(LibraryError) { throw Self.notWritten(#function) }
    public func downloadItems(ids: [Int64]) async throws(LibraryError) -> [DownloadItem] { throw Self.notWritten(#function) }
    public func newestEpisodes(channelID: Int64, limit: Int) async throws(LibraryError) -> [DownloadItem] { throw Self.notWritten(#function) }
    public func itemIDs(channelID: Int64) async throws(LibraryError) -> [Int64] { throw Self.notWritten(#function) }
    public func watched(before time: Int64, among ids: [Int64]) async throws(LibraryError) -> [Int64] { throw Self.notWritten(#function) }
}
