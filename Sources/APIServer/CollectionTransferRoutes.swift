import FeedModel
import Hummingbird
import LibraryStore

/// Copying and moving items between collections, as ViewVault's lists do
/// (`POST /api/collections/{id}/items/{item_id}/copy|move`, `GET …/available-targets`,
/// `POST /api/collections/bulk-operation`). The rules are the store's (`CollectionTransfer`);
/// this decodes a request into one, or refuses it in one line, and words what it did.
extension CollectionRoutes {
    func addTransfers(to group: RouterGroup<APIRequestContext>) {
        for operation in CollectionTransfer.Operation.allCases {
            group.post("collections/:id/items/:item_id/\(operation.rawValue)") { request, context in
                let body = try await RequestBody.decode(TransferItemBody.self, request, context: context)
                return try await transferItem(operation, pathID(context), pathID(context, "item_id"), body, context)
            }
        }
        group.get("collections/:id/available-targets") { _, context in
            let library = try context.library()
            let id = try pathID(context)
            let targets = try await FeedRoutes.library { () async throws(LibraryError) in try await library.collectionTargets(of: id) }
            return AvailableTargetsResponse(collections: targets)
        }
        group.post("collections/bulk-operation") { request, context in
            let body = try await RequestBody.decode(BulkOperationBody.self, request, context: context)
            let library = try context.library()
            let transfer = try body.transfer()
            let now = clock()
            let result = try await FeedRoutes.library { () async throws(LibraryError) in try await library.transfer(transfer, now: now) }
            return BulkOperationResponse(result)
        }
    }

    /// 200 with what was done; 409, the same shape with `duplicate` true, when the item is in the
    /// target already; 404 when it is not in the collection (or either collection is not the user's).
    func transferItem(_ operation: CollectionTransfer.Operation, _ id: Int64, _ item: Int64, _ body: TransferItemBody,
                      _ context: APIRequestContext) async throws -> EditedResponse<TransferItemResponse> {
        let library = try context.library()
        let now = clock()
        let preserve = body.preserveMetadata ?? false
        let outcome: Result<CollectionTransferResult, LibraryError>
        do throws(LibraryError) {
            outcome = .success(try await library.transfer(item: item, operation, from: id, to: body.targetCollectionID,
                                                          preserveMetadata: preserve, now: now))
        } catch {
            outcome = .failure(error)
        }
        switch outcome {
        case .success(let result):
            return EditedResponse(status: .ok, response: TransferItemResponse(
                success: true, message: result.summary, duplicate: false, itemsAffected: result.affected.count))
        case .failure(let error):
            guard case .alreadyInCollection = error else { throw APIError(error) }
            return EditedResponse(status: .conflict, response: TransferItemResponse(
                success: false, message: error.description, duplicate: true, itemsAffected: 0))
        }
    }
}

/// `POST /api/collections/{id}/items/{item_id}/copy|move`.
struct TransferItemBody: Decodable {
    var targetCollectionID: Int64
    var preserveMetadata: Bool?
    enum CodingKeys: String, CodingKey { case targetCollectionID = "target_collection_id", preserveMetadata = "preserve_metadata" }
}

struct TransferItemResponse: Encodable, Sendable, ResponseEncodable {
    var success: Bool
    var message: String
    var duplicate: Bool
    var itemsAffected: Int
    enum CodingKeys: String, CodingKey { case success, message, duplicate, itemsAffected = "items_affected" }
}

/// `GET /api/collections/{id}/available-targets`.
struct AvailableTargetsResponse: Encodable, Sendable, ResponseEncodable {
    var collections: [CollectionTarget]
}

/// `POST /api/collections/bulk-operation`: decoded as given, made a `CollectionTransfer` (or
/// refused in one line) by `transfer()`.
struct BulkOperationBody: Decodable {
    struct Entry: Decodable {
        var itemID: Int64
        var itemType: String?
        enum CodingKeys: String, CodingKey { case itemID = "item_id", itemType = "item_type" }
    }

    var operation: String
    var sourceCollectionID: Int64
    var targetCollectionID: Int64
    var items: [Entry]
    var preserveMetadata: Bool?
    enum CodingKeys: String, CodingKey {
        case operation, items, sourceCollectionID = "source_collection_id", targetCollectionID = "target_collection_id"
        case preserveMetadata = "preserve_metadata"
    }

    func transfer() throws(APIError) -> CollectionTransfer {
        guard let operation = CollectionTransfer.Operation(rawValue: operation) else {
            throw .unprocessable("operation must be \(Self.choices(CollectionTransfer.Operation.allCases.map(\.rawValue))), not \(LibraryError.quoted(operation))")
        }
        var subjects: [TransferSubject] = []
        for (index, entry) in items.enumerated() {
            guard let kind = TransferSubject.Kind(rawValue: entry.itemType ?? TransferSubject.Kind.item.rawValue) else {
                throw .unprocessable("items[\(index)].item_type must be \(Self.choices(TransferSubject.Kind.allCases.map(\.rawValue))), "
                                     + "not \(LibraryError.quoted(entry.itemType ?? ""))")
            }
            subjects.append(TransferSubject(kind, entry.itemID))
        }
        do {
            return try CollectionTransfer(operation, from: sourceCollectionID, to: targetCollectionID, subjects: subjects,
                                          preserveMetadata: preserveMetadata ?? false)
        } catch {
            throw APIError(error)
        }
    }

    private static func choices(_ values: [String]) -> String {
        values.dropLast().joined(separator: ", ") + " or " + (values.last ?? "")
    }
}

/// What a bulk operation did: `success` when every item was found (duplicates are no failure).
struct BulkOperationResponse: Encodable, Sendable, ResponseEncodable {
    struct Failure: Encodable, Sendable {
        var itemID: Int64
        var itemType: String
        var error: String
        enum CodingKeys: String, CodingKey { case itemID = "item_id", itemType = "item_type", error }
    }

    var success: Bool
    var message: String
    var itemsAffected: Int
    var duplicatesSkipped: Int
    var errors: [Failure]

    init(_ result: CollectionTransferResult) {
        success = result.failures.isEmpty
        message = result.summary
        itemsAffected = result.affected.count
        duplicatesSkipped = result.duplicates.count
        errors = result.failures.map { Failure(itemID: $0.subject.id, itemType: $0.subject.kind.rawValue, error: $0.error.descriptionWithoutPaths) }
    }

    enum CodingKeys: String, CodingKey {
        case success, message, errors, itemsAffected = "items_affected", duplicatesSkipped = "duplicates_skipped"
    }
}
