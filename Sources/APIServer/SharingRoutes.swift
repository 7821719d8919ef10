import FeedIngest
import FeedModel
import HTTPFetch
import Hummingbird
import LibraryStore

/// Publishing the user's collections and following others' (issue 29): `POST
/// /api/collections/{id}/publish` (the links), `…/unpublish`, `GET …/publish` (whether and where);
/// `/api/followed-collections` (listed apart from the user's own, read-only, with their owner and
/// whether they were withdrawn). The public side, what a link shows anyone, is
/// `SharedCollectionRoutes`.
struct SharingRoutes {
    let clock: @Sendable () -> Int64
    /// The server's public address (`ServerConfiguration.publicURL`): the links it answers are
    /// whole URLs with it, else paths.
    let publicURL: String?
    let fetcher: Fetcher
    let policy: FeedURLPolicy

    func add(to group: RouterGroup<APIRequestContext>) {
        group.get("collections/:id/publish") { _, context in
            let library = try context.library()
            let id = try pathID(context)
            let link = try await FeedRoutes.library { () async throws(LibraryError) in try await library.publishedLink(collectionID: id) }
            return PublishResponse(link, base: publicURL)
        }
        group.post("collections/:id/publish") { _, context in
            let library = try context.library()
            let id = try pathID(context)
            let now = clock()
            let link = try await FeedRoutes.library { () async throws(LibraryError) in
                try await library.publishCollection(id: id, token: .random(), now: now)
            }
            return PublishResponse(link, base: publicURL)
        }
        group.post("collections/:id/unpublish") { _, context in
            let library = try context.library()
            let id = try pathID(context)
            let now = clock()
            try await FeedRoutes.library { () async throws(LibraryError) in try await library.unpublishCollection(id: id, now: now) }
            return PublishResponse(nil, base: publicURL)
        }

        group.get("followed-collections") { _, context in
            let library = try context.library()
            let all = try await FeedRoutes.library { () async throws(LibraryError) in try await library.followedCollections() }
            return FollowedCollectionListResponse(items: all.map(FollowedCollectionResponse.init), total: all.count)
        }
        group.post("followed-collections") { request, context in
            let body = try await RequestBody.decode(FollowBody.self, request, context: context)
            return EditedResponse(status: .created, response: try await follow(body.url, context))
        }
        group.get("followed-collections/:id") { _, context in
            let library = try context.library()
            let id = try pathID(context)
            let (followed, items) = try await FeedRoutes.library { () async throws(LibraryError) in try await library.followedCollection(id: id) }
            return FollowedCollectionWithItemsResponse(collection: FollowedCollectionResponse(followed),
                                                       items: SharedCollectionDocument.items(items))
        }
        group.delete("followed-collections/:id") { _, context in
            let library = try context.library()
            let id = try pathID(context)
            try await FeedRoutes.library { () async throws(LibraryError) in try await library.unfollow(id: id) }
            return Response(status: .noContent)
        }
    }

    /// Follows the collection `text` links to: this server's (by its token, whatever host the
    /// link names), else another server's, read through its JSON within what the server may
    /// fetch (`FeedURLPolicy`).
    func follow(_ text: String, _ context: APIRequestContext) async throws -> FollowedCollectionResponse {
        let library = try context.library()
        let link: SharedCollectionLink
        switch SharedCollectionLink.parse(text) {
        case .success(let parsed): link = parsed
        case .failure(let error): throw APIError.unprocessable(error.description)
        }
        if let source = link.jsonURL, let refusal = policy.refusal(forPage: source),
           try await FeedRoutes.library({ () async throws(LibraryError) in try await library.sharedCollections.sharedCollection(token: link.token) }) == nil {
            throw APIError.badRequest(refusal)
        }
        let follower = CollectionFollower(store: library, reach: policy.reach, fetcher: fetcher)
        do {
            return FollowedCollectionResponse(try await follower.follow(link, now: clock()))
        } catch {
            switch error {
            case .notALink(let why): throw APIError.unprocessable(why)
            case .library(let refused): throw APIError(refused)
            case .unreadable(let why): throw APIError(.badGateway, why)
            }
        }
    }
}

/// `GET|POST /api/collections/{id}/publish`, `POST …/unpublish`: whether it is published and
/// where.
struct PublishResponse: ResponseEncodable, Sendable {
    var published: Bool
    @Nullable var url: String?
    @Nullable var rssURL: String?
    @Nullable var jsonURL: String?
    @Nullable var publishedAt: String?

    init(_ link: PublishedLink?, base: String?) {
        published = link != nil
        let links = link.map { ShareLinks($0.token, base: base) }
        url = links?.url; rssURL = links?.rssURL; jsonURL = links?.jsonURL
        publishedAt = link.map { WireDate.string($0.publishedAt) }
    }

    enum CodingKeys: String, CodingKey { case published, url, rssURL = "rss_url", jsonURL = "json_url", publishedAt = "published_at" }
}

/// `POST /api/followed-collections`.
struct FollowBody: Decodable {
    var url: String
}

/// A followed collection: read-only, with its owner, and `withdrawn` once its owner withdrew it.
struct FollowedCollectionResponse: ResponseEncodable, Sendable {
    var id: Int64
    var url: String
    var name: String
    @Nullable var description: String?
    var ownerName: String
    @Nullable var coverURL: String?
    var itemCount: Int
    /// Another server's (read at each sync), or this one's (live).
    var remote: Bool
    @Nullable var sourceURL: String?
    var withdrawn: Bool
    @Nullable var withdrawnAt: String?
    var followedAt: String
    @Nullable var refreshedAt: String?
    /// Why the last read of another server's collection failed.
    @Nullable var lastError: String?

    init(_ followed: FollowedCollection) {
        id = followed.id; url = followed.url; name = followed.name; description = followed.description; ownerName = followed.ownerName
        coverURL = followed.coverURL; itemCount = followed.itemCount; remote = followed.isRemote; sourceURL = followed.sourceURL
        withdrawn = followed.isWithdrawn; withdrawnAt = followed.withdrawnAt.map(WireDate.string)
        followedAt = WireDate.string(followed.followedAt); refreshedAt = followed.refreshedAt.map(WireDate.string)
        lastError = followed.lastError
    }

    enum CodingKeys: String, CodingKey {
        case id, url, name, description, ownerName = "owner_name", coverURL = "cover_url", itemCount = "item_count", remote
        case sourceURL = "source_url", withdrawn, withdrawnAt = "withdrawn_at", followedAt = "followed_at", refreshedAt = "refreshed_at"
        case lastError = "last_error"
    }
}

/// `GET /api/followed-collections`.
struct FollowedCollectionListResponse: ResponseEncodable, Sendable {
    var items: [FollowedCollectionResponse]
    var total: Int
}

/// `GET /api/followed-collections/{id}`: the collection and its items as its JSON has them
/// (`SharedCollectionDocument.Item`: what the web app plays, `audio_url`).
struct FollowedCollectionWithItemsResponse: ResponseEncodable, Sendable {
    var collection: FollowedCollectionResponse
    var items: [SharedCollectionDocument.Item]

    func encode(to encoder: any Encoder) throws {
        try collection.encode(to: encoder)
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(items, forKey: .items)
    }
    enum Key: String, CodingKey { case items }
}
