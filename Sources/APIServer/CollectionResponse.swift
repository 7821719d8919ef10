import FeedModel
import Foundation
import LibraryStore

/// A collection as the backend's `CollectionResponse` (app/schemas/collection.py) has it.
struct CollectionResponse: Encodable, Sendable {
    var id: Int64
    var name: String
    var slug: String
    @Nullable var description: String?
    @Nullable var coverURL: String?
    var sortOrder: Int
    var itemCount: Int
    var createdAt: String
    var updatedAt: String

    init(_ collection: CollectionDetails) {
        id = collection.id; name = collection.name; slug = Self.slug(collection.name); description = collection.description
        coverURL = collection.coverURL; sortOrder = collection.sortOrder; itemCount = collection.itemCount
        createdAt = WireDate.string(collection.createdAt); updatedAt = WireDate.string(collection.updatedAt)
    }

    /// The backend's slug: lowercase letters and digits, other runs as one `-`.
    static func slug(_ name: String) -> String {
        var slug = ""
        for character in name.lowercased() {
            if character.isLetter || character.isNumber { slug.append(character) } else if !slug.isEmpty && slug.last != "-" { slug.append("-") }
        }
        while slug.last == "-" { slug.removeLast() }
        return slug.isEmpty ? "collection" : slug
    }

    enum CodingKeys: String, CodingKey {
        case id, name, slug, description, coverURL = "cover_url", sortOrder = "sort_order", itemCount = "item_count"
        case createdAt = "created_at", updatedAt = "updated_at"
    }
}

/// `GET /api/collections/{id}`: the backend's `CollectionWithItemsResponse`.
struct CollectionWithItemsResponse: Encodable, Sendable {
    var collection: CollectionResponse
    var items: [CollectionItemResponse]

    func encode(to encoder: any Encoder) throws {
        try collection.encode(to: encoder)
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(items, forKey: .items)
    }
    enum Key: String, CodingKey { case items }
}

/// `GET /api/collections`: the backend's `CollectionListResponse`.
struct CollectionListResponse: Encodable, Sendable {
    var items: [CollectionResponse]
    var total: Int
}

/// An item of a collection as the backend's `CollectionItemResponse` has it. Its `id` is the
/// library item's id (an item is in a collection at most once), what `DELETE …/items/{id}` and
/// `reorder` take.
struct CollectionItemResponse: Encodable, Sendable {
    var id: Int64
    var itemType: String
    var url: String
    @Nullable var thumbnailURL: String?
    @Nullable var title: String?
    @Nullable var sourceURL: String?
    @Nullable var domain: String?
    @Nullable var embedType: String?
    @Nullable var videoID: String?
    /// feedctl's: the item's channel (a collection keeps items whose channel nobody follows).
    var channelName: String
    var sortOrder: Int
    var addedAt: String
    var isWatched: Bool
    @Nullable var watchedAt: String?
    @Nullable var watchProgressSeconds: Int?

    init(_ entry: CollectionEntry) {
        let item = entry.item
        id = item.id
        itemType = item.platform == .podcast ? "podcast_episode" : "video"
        url = item.url ?? item.enclosureURL ?? ""
        thumbnailURL = item.thumbnail; title = item.title; sourceURL = item.url
        domain = URLComponents(string: url)?.host
        embedType = item.platform == .podcast ? nil : item.platform.rawValue
        videoID = item.itemID; channelName = item.channel; sortOrder = entry.position; addedAt = WireDate.string(entry.addedAt)
        isWatched = item.watched; watchedAt = entry.watchedAt.map(WireDate.string); watchProgressSeconds = item.progress
    }

    enum CodingKeys: String, CodingKey {
        case id, itemType = "item_type", url, thumbnailURL = "thumbnail_url", title, sourceURL = "source_url", domain
        case embedType = "embed_type", videoID = "video_id", channelName = "channel_name", sortOrder = "sort_order", addedAt = "added_at"
        case isWatched = "is_watched", watchedAt = "watched_at", watchProgressSeconds = "watch_progress_seconds"
    }
}

/// `POST /api/collections`: the backend's `CollectionCreate`.
struct CreateCollectionBody: Decodable {
    var name: String
    var description: String?
}

/// `PUT /api/collections/{id}`: the backend's `CollectionUpdate`. A `description` sent as null
/// clears it; one not sent stays.
struct UpdateCollectionBody: Decodable {
    var name: String?
    var description: String??
    var sortOrder: Int?
    enum CodingKeys: String, CodingKey { case name, description, sortOrder = "sort_order" }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        description = container.contains(.description) ? .some(try container.decodeIfPresent(String.self, forKey: .description)) : nil
        sortOrder = try container.decodeIfPresent(Int.self, forKey: .sortOrder)
    }
}

/// `POST /api/collections/{id}/items`: the backend's `CollectionItemCreate` (`item_type`,
/// `url`, …), whose `url` must be a library item's page or media; or feedctl's `{item_id}`.
struct AddCollectionItemBody: Decodable {
    var itemID: Int64?
    var itemType: String?
    var url: String?
    enum CodingKeys: String, CodingKey { case itemID = "item_id", itemType = "item_type", url }
}

/// `POST /api/collections/{id}/items/reorder`: the backend's `ReorderItemsRequest`.
struct ReorderBody: Decodable {
    var itemIDs: [Int64]
    enum CodingKeys: String, CodingKey { case itemIDs = "item_ids" }
}

/// `PUT /api/collections/{id}/items/{item_id}/progress`: the backend's `CollectionItemProgressUpdate`.
struct CollectionProgressBody: Decodable {
    var progressSeconds: Int
    enum CodingKeys: String, CodingKey { case progressSeconds = "progress_seconds" }
}

/// `GET /api/collections/export/{id}`: the backend's `CollectionExport`.
struct CollectionExport: Encodable, Sendable {
    var name: String
    var slug: String
    @Nullable var description: String?
    var itemCount: Int
    var createdAt: String
    var items: [CollectionItemResponse]
    enum CodingKeys: String, CodingKey { case name, slug, description, itemCount = "item_count", createdAt = "created_at", items }
}
