/// A collection with what the API shows of it (`/api/collections`): its id, description,
/// cover, sort order and item count.
public struct CollectionDetails: Sendable, Equatable {
    public var id: Int64
    public var name: String
    public var description: String?
    public var coverURL: String?
    public var sortOrder: Int
    public var itemCount: Int
    public var createdAt: Int64
    public var updatedAt: Int64

    public init(id: Int64, name: String, description: String?, coverURL: String?, sortOrder: Int, itemCount: Int,
                createdAt: Int64, updatedAt: Int64) {
        self.id = id; self.name = name; self.description = description; self.coverURL = coverURL
        self.sortOrder = sortOrder; self.itemCount = itemCount; self.createdAt = createdAt; self.updatedAt = updatedAt
    }
}

/// An item in a collection: the library item, its position (1…count) and when it was added.
public struct CollectionEntry: Sendable, Equatable {
    public var item: LibraryItem
    public var position: Int
    public var addedAt: Int64
    /// When the user marked it watched (nil: not watched).
    public var watchedAt: Int64?

    public init(item: LibraryItem, position: Int, addedAt: Int64, watchedAt: Int64?) {
        self.item = item; self.position = position; self.addedAt = addedAt; self.watchedAt = watchedAt
    }
}

/// A change to a collection: each field given is set, the others stay. `description` set to
/// `.some(nil)` clears it.
public struct CollectionChange: Sendable, Equatable {
    public var name: String?
    public var description: String??
    public var sortOrder: Int?

    public init(name: String? = nil, description: String?? = nil, sortOrder: Int? = nil) {
        self.name = name; self.description = description; self.sortOrder = sortOrder
    }
}
