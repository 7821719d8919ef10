import FeedModel
import FeedText
import Foundation
import LibraryStore

/// A published collection's JSON (`GET /api/shared/TOKEN`): what the server writes (nil as
/// `null`: every key is there for a reader) and what a follower's sync on another feedctl
/// server reads, one type for both. Dates are ISO 8601 UTC,
/// as the rest of the API's; an item's media is `audio_url`, as the feed's items are.
///
/// Read from another server, it is untrusted: every URL that is not http(s) is dropped, text is
/// trimmed, and a document of more than `SharingRule.maxItems` items or without a name is
/// refused (the fetch's own size cap came first).
public struct SharedCollectionDocument: Codable, Sendable, Equatable {
    public var name: String
    @Nullable public var description: String?
    @Nullable public var coverURL: String?
    public var ownerName: String
    public var updatedAt: String
    /// Where the page, the RSS and this JSON are (as the serving server knows them: relative
    /// without its public address); not read back.
    @Nullable public var url: String?
    @Nullable public var rssURL: String?
    @Nullable public var jsonURL: String?
    public var itemCount: Int
    public var items: [Item]

    public struct Item: Codable, Sendable, Equatable {
        public var title: String
        public var channelName: String
        @Nullable public var platform: String?
        @Nullable public var publishedAt: String?
        @Nullable public var durationSeconds: Int?
        @Nullable public var audioURL: String?
        @Nullable public var audioType: String?
        @Nullable public var audioLength: Int64?
        @Nullable public var thumbnailURL: String?
        @Nullable public var url: String?
        public var guid: String
        public var addedAt: String

        enum CodingKeys: String, CodingKey {
            case title, channelName = "channel_name", platform, publishedAt = "published_at", durationSeconds = "duration_seconds"
            case audioURL = "audio_url", audioType = "audio_type", audioLength = "audio_length", thumbnailURL = "thumbnail_url"
            case url, guid, addedAt = "added_at"
        }
    }

    enum CodingKeys: String, CodingKey {
        case name, description, coverURL = "cover_url", ownerName = "owner_name", updatedAt = "updated_at", url
        case rssURL = "rss_url", jsonURL = "json_url", itemCount = "item_count", items
    }

    /// The document a server writes for `collection`, with where it is served.
    public init(_ collection: SharedCollection, url: String?, rssURL: String?, jsonURL: String?) {
        name = collection.name; description = collection.description; coverURL = collection.coverURL
        ownerName = collection.ownerName; updatedAt = Self.date(collection.updatedAt)
        self.url = url; self.rssURL = rssURL; self.jsonURL = jsonURL
        itemCount = collection.items.count
        items = Self.items(collection.items)
    }

    /// Items as this document writes them (a followed collection's too).
    public static func items(_ items: [SharedItem]) -> [Item] {
        items.map { item in
            Item(title: item.title, channelName: item.channelName, platform: item.platform?.rawValue, publishedAt: item.published.map(date),
                 durationSeconds: item.duration, audioURL: item.enclosureURL, audioType: item.enclosureType, audioLength: item.enclosureLength,
                 thumbnailURL: item.thumbnail, url: item.url, guid: item.guid, addedAt: date(item.addedAt))
        }
    }

    /// A document another server sent, read as untrusted (see the type's comment).
    public static func read(_ body: [UInt8], from url: String) throws(FollowError) -> SharedCollection {
        let document: SharedCollectionDocument
        do {
            document = try JSONDecoder().decode(SharedCollectionDocument.self, from: Data(body))
        } catch {
            throw .unreadable("\(url): not a published collection's JSON (\(Self.reason(error)))")
        }
        return try document.collection(from: url)
    }

    /// The collection this document describes, checked.
    func collection(from url: String) throws(FollowError) -> SharedCollection {
        guard items.count <= SharingRule.maxItems else {
            throw .unreadable("\(url): the collection has \(items.count) items, more than the \(SharingRule.maxItems) a follower keeps")
        }
        let name = Self.text(self.name)
        guard !name.isEmpty else { throw .unreadable("\(url): the collection has no name") }
        return SharedCollection(
            name: name, description: description.map(Self.text).flatMap { $0.isEmpty ? nil : $0 }, coverURL: Self.webURL(coverURL),
            ownerName: Self.text(ownerName), updatedAt: DateParser.parse(updatedAt) ?? 0,
            items: items.enumerated().map { index, item in
                SharedItem(title: Self.text(item.title), channelName: Self.text(item.channelName), platform: item.platform.flatMap(Platform.init),
                           published: item.publishedAt.flatMap(DateParser.parse), duration: item.durationSeconds.flatMap { $0 >= 0 ? $0 : nil },
                           enclosureURL: Self.webURL(item.audioURL), enclosureType: item.audioType.map(Self.text),
                           enclosureLength: item.audioLength.flatMap { $0 >= 0 ? $0 : nil }, thumbnail: Self.webURL(item.thumbnailURL),
                           url: Self.webURL(item.url), guid: Self.text(item.guid).isEmpty ? "item-\(index + 1)" : Self.text(item.guid),
                           addedAt: DateParser.parse(item.addedAt) ?? 0)
            })
    }

    /// One line of text: trimmed, control characters dropped.
    static func text(_ s: String) -> String {
        String(String.UnicodeScalarView(s.unicodeScalars.filter { $0.value >= 0x20 && !(0x7F...0x9F).contains($0.value) }))
            .trimmingCharacters(in: .whitespaces)
    }

    /// An http(s) URL with a host, else nil: what a page links and plays (a feed's `javascript:`
    /// link must not become one).
    public static func webURL(_ s: String?) -> String? {
        guard let s = s?.trimmingCharacters(in: .whitespaces), !s.unicodeScalars.contains(where: { $0.value <= 0x20 }),
              let parts = URLComponents(string: s), let scheme = parts.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = parts.host, !host.isEmpty else { return nil }
        return s
    }

    static func date(_ seconds: Int64) -> String { UTCDate.string(seconds) ?? "1970-01-01T00:00:00Z" }

    /// What JSONDecoder found wrong, in a few words.
    private static func reason(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): "no \(key.stringValue)"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            "\(context.codingPath.map(\.stringValue).joined(separator: ".")) is of the wrong type"
        default: "malformed JSON"
        }
    }
}
