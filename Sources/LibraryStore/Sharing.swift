import FeedModel

// Published collections and following them (issue 29; `SharingRule`). A published collection is
// read by anyone with its link: its name, description, cover, its owner's name and its items'
// public facts (title, channel, dates, duration, enclosure, artwork, page), never the owner's
// watch state, history, saved items or notes. A link is withdrawn for good when its collection
// is unpublished, deleted, or its owner removed (one rule, kept by the schema: the link's row
// outlives its collection); publishing again makes a new link.

/// A published collection's token: `SharingRule.tokenCharacters` lowercase hex digits, made
/// valid where it is read (a link, a route), then trusted.
public struct ShareToken: Sendable, Hashable, CustomStringConvertible {
    public let text: String

    /// A token as a link carries it; nil for text that cannot be one of ours.
    public init?(_ text: some StringProtocol) {
        guard text.utf8.count == SharingRule.tokenCharacters,
              text.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else { return nil }
        self.text = String(text)
    }

    /// A new token of `SharingRule.tokenBytes` random bytes from the system's CSPRNG (getrandom).
    public static func random() -> ShareToken {
        var generator = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef".utf8)
        var text = ""
        for _ in 0..<SharingRule.tokenBytes {
            let byte = UInt8.random(in: .min ... .max, using: &generator)
            text.unicodeScalars.append(Unicode.Scalar(digits[Int(byte >> 4)]))
            text.unicodeScalars.append(Unicode.Scalar(digits[Int(byte & 0x0F)]))
        }
        return ShareToken(unchecked: text)
    }

    private init(unchecked text: String) { self.text = text }

    public var description: String { text }
}

/// Where a published collection is (`SharingRule`): its page, its RSS and its JSON, under `base`
/// (a server's address, with any path prefix; a trailing `/` is dropped) or, without one, as
/// paths on the server. The one spelling of the three.
public struct ShareLinks: Sendable, Equatable, Encodable {
    public let url: String
    public let rssURL: String
    public let jsonURL: String

    public init(_ token: ShareToken, base: String?) {
        var base = base ?? ""
        while base.hasSuffix("/") { base.removeLast() }
        url = base + SharingRule.pagePrefix + token.text
        rssURL = url + SharingRule.rssSuffix
        jsonURL = base + SharingRule.jsonPrefix + token.text
    }

    enum CodingKeys: String, CodingKey { case url, rssURL = "rss_url", jsonURL = "json_url" }
}

/// A collection's live link.
public struct PublishedLink: Sendable, Equatable {
    public var token: ShareToken
    public var collectionID: Int64
    public var publishedAt: Int64

    public init(token: ShareToken, collectionID: Int64, publishedAt: Int64) {
        self.token = token; self.collectionID = collectionID; self.publishedAt = publishedAt
    }
}

/// What a published collection shows anyone with its link.
public struct SharedCollection: Sendable, Equatable {
    public var name: String
    public var description: String?
    public var coverURL: String?
    /// Its owner's user name.
    public var ownerName: String
    public var updatedAt: Int64
    /// In the collection's order.
    public var items: [SharedItem]

    public init(name: String, description: String?, coverURL: String?, ownerName: String, updatedAt: Int64, items: [SharedItem]) {
        self.name = name; self.description = description; self.coverURL = coverURL; self.ownerName = ownerName
        self.updatedAt = updatedAt; self.items = items
    }
}

/// An item of a published collection: what its feed made public, nothing of anyone's state.
public struct SharedItem: Sendable, Equatable {
    public var title: String
    public var channelName: String
    /// Nil when another server named a platform this one does not know.
    public var platform: Platform?
    public var published: Int64?
    public var duration: Int?
    public var enclosureURL: String?
    public var enclosureType: String?
    public var enclosureLength: Int64?
    /// The item's picture, else its channel's.
    public var thumbnail: String?
    /// The item's page.
    public var url: String?
    /// The feed's id for it (its guid, a video id): the RSS's guid.
    public var guid: String
    public var addedAt: Int64

    public init(title: String, channelName: String, platform: Platform?, published: Int64?, duration: Int?, enclosureURL: String?,
                enclosureType: String?, enclosureLength: Int64?, thumbnail: String?, url: String?, guid: String, addedAt: Int64) {
        self.title = title; self.channelName = channelName; self.platform = platform; self.published = published
        self.duration = duration; self.enclosureURL = enclosureURL; self.enclosureType = enclosureType
        self.enclosureLength = enclosureLength; self.thumbnail = thumbnail; self.url = url; self.guid = guid; self.addedAt = addedAt
    }
}

/// What a link leads to.
public enum SharedLookup: Sendable, Equatable {
    case live(SharedCollection)
    /// Unpublished, or its collection or owner gone: for good (410).
    case withdrawn
}

/// A collection the user follows: published on this server (a local follow, read live) or on
/// another feedctl server (read at each sync, as its JSON last said). Read-only.
public struct FollowedCollection: Sendable, Equatable {
    public var id: Int64
    /// The link as it was followed.
    public var url: String
    /// The other server's JSON (`/api/shared/TOKEN`); nil for this server's collection.
    public var sourceURL: String?
    public var name: String
    public var description: String?
    public var ownerName: String
    public var coverURL: String?
    /// Its items now (none once withdrawn).
    public var itemCount: Int
    public var followedAt: Int64
    /// When another server's collection was last read (nil: this server's).
    public var refreshedAt: Int64?
    /// Why the last read of another server's collection failed (nil: it did not).
    public var lastError: String?
    /// When its owner withdrew it (nil: live).
    public var withdrawnAt: Int64?

    public init(id: Int64, url: String, sourceURL: String?, name: String, description: String?, ownerName: String, coverURL: String?,
                itemCount: Int, followedAt: Int64, refreshedAt: Int64?, lastError: String?, withdrawnAt: Int64?) {
        self.id = id; self.url = url; self.sourceURL = sourceURL; self.name = name; self.description = description
        self.ownerName = ownerName; self.coverURL = coverURL; self.itemCount = itemCount; self.followedAt = followedAt
        self.refreshedAt = refreshedAt; self.lastError = lastError; self.withdrawnAt = withdrawnAt
    }

    public var isRemote: Bool { sourceURL != nil }
    public var isWithdrawn: Bool { withdrawnAt != nil }
}

/// A collection on another server, to follow: the link given, the JSON read, what was in it,
/// and what the follower may make the library fetch (`AddressReach`).
public struct NewRemoteFollow: Sendable, Equatable {
    public var url: String
    public var sourceURL: String
    public var reach: AddressReach
    public var collection: SharedCollection

    public init(url: String, sourceURL: String, reach: AddressReach, collection: SharedCollection) {
        self.url = url; self.sourceURL = sourceURL; self.reach = reach; self.collection = collection
    }
}

/// A followed collection on another server, as a refresh reads it.
public struct RemoteFollow: Sendable, Equatable {
    public var id: Int64
    public var sourceURL: String
    public var reach: AddressReach

    public init(id: Int64, sourceURL: String, reach: AddressReach) {
        self.id = id; self.sourceURL = sourceURL; self.reach = reach
    }
}

/// What reading a followed collection on another server came to.
public struct RemoteFollowRefresh: Sendable, Equatable {
    public enum Outcome: Sendable, Equatable {
        case collection(SharedCollection)
        /// It answered 410: withdrawn, for good.
        case withdrawn
        /// One line: the URL, then why.
        case failed(String)
    }

    public var followID: Int64
    public var outcome: Outcome

    public init(followID: Int64, outcome: Outcome) { self.followID = followID; self.outcome = outcome }
}

/// The user's published collections and the collections they follow. Another user's ids are
/// not found, as everywhere (`noCollectionID`, `noFollowedCollection`).
public protocol SharingStore: Sendable {
    /// Published collections as anyone reads them, and the refreshes of followed ones on other
    /// servers (for no user; the same library).
    var sharedCollections: any SharedCollectionStore { get }
    /// Publishes collection `id` under `token` (a new one: `ShareToken.random()`); a collection
    /// published already keeps its link, which is returned.
    func publishCollection(id: Int64, token: ShareToken, now: Int64) async throws(LibraryError) -> PublishedLink
    /// Withdraws collection `id`'s link for good (`notPublished` when it has none live).
    func unpublishCollection(id: Int64, now: Int64) async throws(LibraryError)
    /// Collection `id`'s live link, nil when it is not published.
    func publishedLink(collectionID: Int64) async throws(LibraryError) -> PublishedLink?
    /// Follows another user's collection published on this library under `token`, followed by
    /// the link `url`: `noSharedCollection`, `withdrawnCollection`, `alreadyFollowing`, or
    /// `invalid` for one's own.
    func follow(token: ShareToken, url: String, now: Int64) async throws(LibraryError) -> FollowedCollection
    /// Follows a collection another server published, as its JSON said (`alreadyFollowing`
    /// when the user follows that JSON's collection already).
    func follow(remote: NewRemoteFollow, now: Int64) async throws(LibraryError) -> FollowedCollection
    /// The user's followed collections, by name.
    func followedCollections() async throws(LibraryError) -> [FollowedCollection]
    /// Followed collection `id` with its items (none once withdrawn).
    func followedCollection(id: Int64) async throws(LibraryError) -> (collection: FollowedCollection, items: [SharedItem])
    /// Stops following `id`.
    func unfollow(id: Int64) async throws(LibraryError)
    /// The user's followed collections on other servers that are not withdrawn (what their sync reads).
    func remoteFollows() async throws(LibraryError) -> [RemoteFollow]
}

/// Published collections for anyone (the public routes), and followed collections on other
/// servers for no user (a sync, a worker, the daemon's scheduler): any number of processes may
/// refresh them, each claiming those it reads first.
public protocol SharedCollectionStore: Sendable {
    /// What the link `token` leads to; nil when this library never published it.
    func sharedCollection(token: ShareToken) async throws(LibraryError) -> SharedLookup?
    /// At most `limit` followed collections on other servers whose refresh is due (not
    /// withdrawn), each held for `lease` (its next refresh moved past it) in the transaction
    /// that found it, so two refreshers do not read one at once.
    func claimDueRemoteFollows(now: Int64, limit: Int, lease: PollLease) async throws(LibraryError) -> [RemoteFollow]
    /// Stores what a refresh read (a follow unfollowed meanwhile is skipped): its collection
    /// (what changed is its follower's change), its withdrawal (for good, its items let go), or
    /// its failure; the next refresh is due `SharingRule.refreshInterval` later.
    func apply(_ refresh: RemoteFollowRefresh, now: Int64) async throws(LibraryError)
}

/// How a library stores another server's items (a followed collection's JSON column): the same
/// keys on every engine, so `db copy` carries them as they are.
extension SharedItem: Codable {
    enum CodingKeys: String, CodingKey {
        case title, channelName = "channel_name", platform, published, duration, enclosureURL = "enclosure_url"
        case enclosureType = "enclosure_type", enclosureLength = "enclosure_length", thumbnail, url, guid, addedAt = "added_at"
    }
}
