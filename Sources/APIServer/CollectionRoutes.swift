import FeedModel
import Hummingbird
import LibraryStore

/// `/api/collections`, with the backend's ids and shapes. A collection holds library items
/// (the CLI's `collection` commands act on the same collections by name); an item is added by
/// its page or media URL (the backend's `{item_type, url, …}`) or by feedctl's `{item_id}`, and
/// its `id` in a collection is the library item's id. Its watch state is the item's own.
struct CollectionRoutes {
    let clock: @Sendable () -> Int64

    func add(to group: RouterGroup<APIRequestContext>) {
        group.get("collections") { _, context in
            let library = try context.library()
            let all = try await FeedRoutes.library { () async throws(LibraryError) in try await library.collectionDetails() }
            return CollectionListResponse(items: all.map(CollectionResponse.init), total: all.count)
        }
        group.post("collections") { request, context in
            let body = try await RequestBody.decode(CreateCollectionBody.self, request, context: context)
            return try await create(body, context)
        }
        group.post("collections/quick-add") { request, context in
            let body = try await RequestBody.decode(AddCollectionItemBody.self, request, context: context)
            return try await quickAdd(body, context)
        }
        group.get("collections/export/:id") { _, context in try await export(pathID(context), context) }
        group.get("collections/:id") { _, context in try await collection(pathID(context), context) }
        group.put("collections/:id") { request, context in
            let body = try await RequestBody.decode(UpdateCollectionBody.self, request, context: context)
            return try await update(pathID(context), body, context)
        }
        group.delete("collections/:id") { _, context in
            let library = try context.library()
            let id = try pathID(context)
            try await FeedRoutes.library { () async throws(LibraryError) in try await library.deleteCollection(id: id) }
            return Response(status: .noContent)
        }
        group.post("collections/:id/items") { request, context in
            let body = try await RequestBody.decode(AddCollectionItemBody.self, request, context: context)
            return try await addItem(pathID(context), body, context)
        }
        group.post("collections/:id/items/reorder") { request, context in
            let body = try await RequestBody.decode(ReorderBody.self, request, context: context)
            let library = try context.library()
            let id = try pathID(context)
            let now = clock()
            try await FeedRoutes.library { () async throws(LibraryError) in try await library.reorderCollection(id: id, items: body.itemIDs, now: now) }
            return Response(status: .noContent)
        }
        group.delete("collections/:id/items/:item_id") { _, context in
            let library = try context.library()
            let (id, item) = (try pathID(context), try pathID(context, "item_id"))
            let now = clock()
            try await FeedRoutes.library { () async throws(LibraryError) in try await library.removeFromCollection(id: id, item: item, now: now) }
            return Response(status: .noContent)
        }
        group.put("collections/:id/items/:item_id/watched") { request, context in
            let body = try await RequestBody.decode(CollectionWatchedBody.self, request, context: context)
            return try await setState(pathID(context), pathID(context, "item_id"), context) { (library: any APILibrary, item: Int64, now: Int64) async throws(LibraryError) in
                try await library.setWatched([item], watched: body.isWatched, now: now)
            }
        }
        addTransfers(to: group)
        group.put("collections/:id/items/:item_id/progress") { request, context in
            let body = try await RequestBody.decode(CollectionProgressBody.self, request, context: context)
            guard body.progressSeconds >= 0 else { throw APIError.unprocessable("progress_seconds must be at least 0 (got \(body.progressSeconds))") }
            return try await setState(pathID(context), pathID(context, "item_id"), context) { (library: any APILibrary, item: Int64, now: Int64) async throws(LibraryError) in
                try await library.setProgress(item, seconds: body.progressSeconds, now: now)
            }
        }
    }

    func create(_ body: CreateCollectionBody, _ context: APIRequestContext) async throws -> EditedResponse<CollectionResponse> {
        let library = try context.library()
        try Self.check(name: body.name, description: body.description)
        let now = clock()
        let created = try await FeedRoutes.library { () async throws(LibraryError) in
            try await library.createCollection(body.name, description: body.description, now: now)
        }
        return EditedResponse(status: .created, response: CollectionResponse(created))
    }

    func collection(_ id: Int64, _ context: APIRequestContext) async throws -> CollectionWithItemsResponse {
        let library = try context.library()
        let (details, entries) = try await FeedRoutes.library { () async throws(LibraryError) in
            (try await library.collectionDetails(id: id), try await library.collectionEntries(id: id))
        }
        return CollectionWithItemsResponse(collection: CollectionResponse(details), items: entries.map(CollectionItemResponse.init))
    }

    func update(_ id: Int64, _ body: UpdateCollectionBody, _ context: APIRequestContext) async throws -> CollectionResponse {
        let library = try context.library()
        try Self.check(name: body.name, description: body.description ?? nil)
        if let order = body.sortOrder, order < 0 { throw APIError.unprocessable("sort_order must be at least 0 (got \(order))") }
        let now = clock()
        let change = CollectionChange(name: body.name, description: body.description, sortOrder: body.sortOrder)
        return CollectionResponse(try await FeedRoutes.library { () async throws(LibraryError) in
            try await library.updateCollection(id: id, change, now: now)
        })
    }

    func addItem(_ id: Int64, _ body: AddCollectionItemBody, _ context: APIRequestContext) async throws -> EditedResponse<CollectionItemResponse> {
        let library = try context.library()
        if let type = body.itemType, !["image", "video", "podcast_episode"].contains(type) {
            throw APIError.unprocessable("item_type must be one of image, video, podcast_episode, not \"\(type)\"")
        }
        let item: Int64
        if let given = body.itemID {
            item = given
        } else if let url = body.url, !url.isEmpty {
            guard let found = try await FeedRoutes.library({ () async throws(LibraryError) in try await library.itemID(forURL: url) }) else {
                // As for an item_id the library lacks: the item is not found.
                throw APIError.notFound("url \(url) is not an item of the library: a collection holds library items (subscribe to its channel first)")
            }
            item = found
        } else {
            throw APIError.unprocessable("url (or item_id) is required")
        }
        let now = clock()
        let entry = try await FeedRoutes.library { () async throws(LibraryError) in try await library.addToCollection(id: id, item: item, now: now) }
        return EditedResponse(status: .created, response: CollectionItemResponse(entry))
    }

    /// The backend's quick-add: the item goes to the user's "Favorites", made when missing;
    /// 409 when it is there already.
    func quickAdd(_ body: AddCollectionItemBody, _ context: APIRequestContext) async throws -> EditedResponse<CollectionItemResponse> {
        let library = try context.library()
        let now = clock()
        let favorites = try await FeedRoutes.library { () async throws(LibraryError) in
            if let found = try await library.collectionDetails().first(where: { $0.name == CollectionRule.favoritesName }) { return found.id }
            return try await library.createCollection(CollectionRule.favoritesName, description: "Quick-saved favorites", now: now).id
        }
        return try await addItem(favorites, body, context)
    }

    /// The backend's export: the collection and its items as a JSON attachment named by its slug.
    func export(_ id: Int64, _ context: APIRequestContext) async throws -> Response {
        let collection = try await collection(id, context)
        let export = CollectionExport(name: collection.collection.name, slug: collection.collection.slug,
                                      description: collection.collection.description, itemCount: collection.collection.itemCount,
                                      createdAt: collection.collection.createdAt, items: collection.items)
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.contentDisposition] = "attachment; filename=\"\(collection.collection.slug).json\""
        let data = try APIRequestContext.encoder.encode(export)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// Sets an item's watch state through its collection: 404 unless the item is in it.
    func setState(_ id: Int64, _ item: Int64, _ context: APIRequestContext,
                  _ change: @escaping @Sendable (any APILibrary, Int64, Int64) async throws(LibraryError) -> Void) async throws -> CollectionItemResponse {
        let library = try context.library()
        let now = clock()
        let entries = try await FeedRoutes.library { () async throws(LibraryError) in
            let entries = try await library.collectionEntries(id: id)
            guard entries.contains(where: { $0.item.id == item }) else {
                throw LibraryError.notInCollection(item: item, collection: try await library.collectionDetails(id: id).name)
            }
            try await change(library, item, now)
            return try await library.collectionEntries(id: id)
        }
        guard let entry = entries.first(where: { $0.item.id == item }) else { throw APIError.notFound("item \(item) is not in collection \(id)") }
        return CollectionItemResponse(entry)
    }

    /// The backend's bounds (`CollectionRule`): a name of 1–100 characters, a description of at most 500.
    static func check(name: String?, description: String?) throws(APIError) {
        if let name {
            let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.isEmpty { throw .unprocessable("name must not be empty") }
            if trimmed.count > CollectionRule.maxNameCharacters {
                throw .unprocessable("name is longer than \(CollectionRule.maxNameCharacters) characters")
            }
        }
        if let description, description.count > CollectionRule.maxDescriptionCharacters {
            throw .unprocessable("description is longer than \(CollectionRule.maxDescriptionCharacters) characters")
        }
    }
}

/// `PUT /api/collections/{id}/items/{item_id}/watched`: the backend's `CollectionItemWatchedUpdate`.
struct CollectionWatchedBody: Decodable {
    var isWatched: Bool
    enum CodingKeys: String, CodingKey { case isWatched = "is_watched" }
}

extension SavedVideoResponse: ResponseEncodable {}
extension SavedVideoListResponse: ResponseEncodable {}
extension SavedVideoStatsResponse: ResponseEncodable {}
extension SavedVideoCheckResponse: ResponseEncodable {}
extension CollectionResponse: ResponseEncodable {}
extension CollectionListResponse: ResponseEncodable {}
extension CollectionWithItemsResponse: ResponseEncodable {}
extension CollectionItemResponse: ResponseEncodable {}
