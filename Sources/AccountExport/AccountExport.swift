import FeedModel
import Foundation
import LibraryStore

/// What a user's data export reads: their own store (any value acting for them).
public typealias AccountExportLibrary = ChannelStore & SavedVideoStore & CollectionStore & UpNextStore & PlayerStateStore
    & SyncDeviceStore & AccountDataStore & SharingStore

/// Everything that is one user's, as one JSON document (`feedctl user export`, `GET
/// /api/account/export`): what privacy rules call the right to data portability. The shape is
/// stated and versioned (`format`, `version`; docs/server.md, "Your data"): an object whose keys
/// come in the order below, each list a JSON array with one element per line. Times are Unix
/// seconds; absent values are `null`. Never a password hash or a session token.
///
/// The document is written as it is read, in chunks of about `chunkBytes`: the lists that grow
/// without bound (watch state, history, saved videos, episode actions) are read a page of
/// `pageSize` rows at a time, so memory stays bounded whatever the library's size (each
/// collection and the queue are read whole). Pages are read one after another, not in one
/// snapshot: what the user changes while the export runs may or may not be in it.
public enum AccountExport {
    public static let format = "feedctl-account-export"
    /// The shape's version: a change that could break a reader makes a new one.
    public static let version = 1
    static let pageSize = 500
    static let chunkBytes = 64 * 1024

    /// Writes `user`'s document, read from `library` (acting for them), `sessions` and
    /// `identities` (theirs: their sign-in sessions, their accounts at OpenID providers), to `sink`, chunk by chunk; a failure to read or to write stops it there (the document is
    /// then cut short: not valid JSON, never a quietly smaller one).
    public static func write(user: User, sessions: [Session], identities: [UserIdentity], library: any AccountExportLibrary, now: Int64,
                             to sink: (String) async throws -> Void) async throws {
        var buffer = ""
        func raw(_ text: String) async throws {
            buffer += text
            if buffer.utf8.count >= chunkBytes { try await flush() }
        }
        func flush() async throws {
            guard !buffer.isEmpty else { return }
            let chunk = buffer
            buffer = ""
            try await sink(chunk)
        }
        // The lists follow the profile: each starts with a comma.
        func begin(_ name: String) async throws { try await raw(",\n\"\(name)\":[") }
        func end() async throws { try await raw("\n]") }
        func element(_ value: some Encodable, first: Bool) async throws { try await raw((first ? "\n" : ",\n") + (try json(value))) }
        func list(_ name: String, _ values: [some Encodable]) async throws {
            try await begin(name)
            for (n, value) in values.enumerated() { try await element(value, first: n == 0) }
            try await end()
        }
        /// A list read page by page: `read` answers a page from a cursor and the next page's
        /// cursor, nil after the last.
        func pages<Record: Encodable, Cursor>(_ name: String, from start: Cursor,
                                              _ read: (Cursor) async throws -> (records: [Record], next: Cursor?)) async throws {
            try await begin(name)
            var cursor: Cursor? = start, first = true
            while let at = cursor {
                let (records, next) = try await read(at)
                for record in records {
                    try await element(record, first: first)
                    first = false
                }
                cursor = records.isEmpty ? nil : next
            }
            try await end()
        }

        try await raw("{\"format\":\(try json(format)),\"version\":\(version),\"exported_at\":\(now),\n\"profile\":")
        try await raw(try json(ProfileRecord(user)))
        try await list("subscriptions", try await library.allChannels().map(SubscriptionRecord.init))
        try await pages("watch_state", from: Int64(0)) { after in
            let page = try await library.watchStates(after: after, limit: pageSize)
            return (page.map(WatchStateRecord.init), page.count < pageSize ? nil : page.last?.item)
        }
        try await pages("history", from: Int64(0)) { after in
            let page = try await library.historyEntries(after: after, limit: pageSize)
            return (page.map(HistoryRecord.init), page.count < pageSize ? nil : page.last?.id)
        }
        // Most recently saved first, by offset (the API's order).
        try await pages("saved", from: 0) { offset in
            let page = try await library.savedVideos(SavedVideoQuery(limit: pageSize, offset: offset)).videos
            return (page.map(SavedRecord.init), page.count < pageSize ? nil : offset + page.count)
        }
        try await begin("collections")
        for (n, collection) in try await library.collectionDetails().enumerated() {
            let entries = try await library.collectionEntries(id: collection.id)
            let link = try await library.publishedLink(collectionID: collection.id)
            try await element(CollectionRecord(collection, entries: entries, link: link), first: n == 0)
        }
        try await end()
        try await list("followed", try await library.followedCollections().map(FollowedRecord.init))
        try await list("up_next", try await library.upNext().map(QueueRecord.init))
        try await raw(",\n\"player\":")
        try await raw(try json(PlayerRecord(volume: try await library.savedVolume(), last: try await library.lastPlayed())))
        try await raw(",\n\"gpodder\":{\"devices\":")
        try await raw(try json(try await library.syncDevices().map(DeviceRecord.init)))
        try await pages("episode_actions", from: Int64(0)) { after in
            let page = try await library.uploadedEpisodeActions(after: after, limit: pageSize)
            return (page.map(EpisodeActionRecord.init), page.count < pageSize ? nil : page.last?.id)
        }
        try await raw("}")
        try await list("sessions", sessions.map(SessionRecord.init))
        try await list("identities", identities.map(IdentityRecord.init))
        try await raw("}\n")
        try await flush()
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    static func json(_ value: some Encodable) throws -> String {
        String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
