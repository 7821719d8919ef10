import FeedModel
import Hummingbird
import LibraryStore

/// `/api/queue`: the signed-in user's up-next queue, the library's own (`UpNextStore`): the one
/// the CLI's `queue` commands, the daemon (which plays from it) and every browser of the user
/// share. An entry is named by its `id`, stable while it waits (positions shift as others
/// move); the store's rule holds for every way in: a target waits in the queue at most once.
/// Every write answers the queue as it now is.
struct QueueRoutes {
    let clock: @Sendable () -> Int64

    func add(to group: RouterGroup<APIRequestContext>) {
        group.get("queue") { _, context in try await queue(context) }
        group.post("queue") { request, context in
            let body = try await RequestBody.decode(QueueAddBody.self, request, context: context)
            let library = try context.library()
            let item = try await FeedRoutes.library { () async throws(LibraryError) in try await library.item(id: body.itemID) }
            let entry = [(target: MediaTarget.item(item.id), title: item.title)]
            let now = clock()
            try await FeedRoutes.library { () async throws(LibraryError) in
                if body.next == true { try await library.insertNextInUpNext(entry, now: now) } else { try await library.appendToUpNext(entry, now: now) }
            }
            return try await queue(context)
        }
        group.put("queue/:id") { request, context in
            let body = try await RequestBody.decode(QueueMoveBody.self, request, context: context)
            let library = try context.library()
            let from = try await position(of: pathID(context), library)
            try await FeedRoutes.library { () async throws(LibraryError) in try await library.moveInUpNext(from: from, to: body.position) }
            return try await queue(context)
        }
        group.delete("queue/:id") { _, context in
            let library = try context.library()
            let at = try await position(of: pathID(context), library)
            try await FeedRoutes.library { () async throws(LibraryError) in _ = try await library.removeFromUpNext(at: at) }
            return try await queue(context)
        }
        group.delete("queue") { _, context in
            let library = try context.library()
            try await FeedRoutes.library { () async throws(LibraryError) in _ = try await library.clearUpNext() }
            return try await queue(context)
        }
    }

    /// Where entry `id` waits now; 404 when it does not (played, removed, or never).
    private func position(of id: Int64, _ library: any APILibrary) async throws -> Int {
        let entries = try await FeedRoutes.library { () async throws(LibraryError) in try await library.upNext() }
        guard let entry = entries.first(where: { $0.id == id }) else { throw APIError.notFound("no queue entry \(id) (played or removed already?)") }
        return entry.position
    }

    func queue(_ context: APIRequestContext) async throws -> UpNextResponse {
        let library = try context.library()
        let entries = try await FeedRoutes.library { () async throws(LibraryError) in try await library.upNext() }
        let ids = entries.compactMap(\.target.itemID)
        let records = try await FeedRoutes.library { () async throws(LibraryError) in try await library.itemRecords(ids: ids) }
        let byID = Dictionary(records.map { ($0.item.id, $0) }, uniquingKeysWith: { first, _ in first })
        let now = clock()
        return UpNextResponse(items: entries.map { entry in
            UpNextEntryResponse(id: entry.id, position: entry.position, title: entry.title, target: entry.target.text,
                               item: entry.target.itemID.flatMap { byID[$0] }.map { FeedItemResponse($0, now: now) })
        })
    }
}

/// `POST /api/queue`: an item of the library, at the end or (`next`) at the front.
struct QueueAddBody: Decodable {
    var itemID: Int64
    var next: Bool?
    enum CodingKeys: String, CodingKey { case itemID = "item_id", next }
}

/// `PUT /api/queue/{id}`: the entry's new 1-based place.
struct QueueMoveBody: Decodable {
    var position: Int
}

struct UpNextResponse: Encodable, Sendable {
    var items: [UpNextEntryResponse]
}

/// One waiting entry: `item` for a library item (null for a URL or file queued with the CLI,
/// whose `target` names it).
struct UpNextEntryResponse: Encodable, Sendable {
    var id: Int64
    var position: Int
    var title: String
    var target: String
    @Nullable var item: FeedItemResponse?
}
