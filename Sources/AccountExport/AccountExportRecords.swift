import FeedModel
import LibraryStore

// The export's records (version 1): one type per list, keys in snake_case, nil written as null.

struct ProfileRecord: Encodable {
    let id: Int64, name: String, admin: Bool, owner: Bool, hasPassword: Bool, createdAt: Int64
    init(_ user: User) {
        id = user.id.rawValue; name = user.name; admin = user.isAdmin; owner = user.id == .owner
        hasPassword = user.hasPassword; createdAt = user.createdAt
    }
    enum CodingKeys: String, CodingKey { case id, name, admin, owner, hasPassword = "has_password", createdAt = "created_at" }
}

struct SubscriptionRecord: Encodable {
    let channelID: Int64, platform: String, name: String, feedURL: String, sourceURL: String
    @Nullable var image: String?
    let active: Bool
    @Nullable var speed: Double?
    let subscribedAt: Int64
    init(_ channel: Channel) {
        channelID = channel.id; platform = channel.platform.rawValue; name = channel.name; feedURL = channel.feedURL
        sourceURL = channel.sourceURL; image = channel.image; active = channel.active; speed = channel.speed
        subscribedAt = channel.addedAt
    }
    enum CodingKeys: String, CodingKey {
        case channelID = "channel_id", platform, name, feedURL = "feed_url", sourceURL = "source_url", image, active, speed
        case subscribedAt = "subscribed_at"
    }
}

struct WatchStateRecord: Encodable {
    let itemID: Int64, feedURL: String, feedItemID: String
    @Nullable var guid: String?
    let title: String
    @Nullable var url: String?
    @Nullable var enclosureURL: String?
    let watched: Bool, progressSeconds: Int
    @Nullable var watchedAt: Int64?
    let updatedAt: Int64
    init(_ state: ItemWatchState) {
        itemID = state.item; feedURL = state.feedURL; feedItemID = state.itemID; guid = state.guid; title = state.title
        url = state.url; enclosureURL = state.enclosureURL; watched = state.watched; progressSeconds = state.progressSeconds
        watchedAt = state.watchedAt; updatedAt = state.updatedAt
    }
    enum CodingKeys: String, CodingKey {
        case itemID = "item_id", feedURL = "feed_url", feedItemID = "feed_item_id", guid, title, url, enclosureURL = "enclosure_url"
        case watched, progressSeconds = "progress_seconds", watchedAt = "watched_at", updatedAt = "updated_at"
    }
}

struct HistoryRecord: Encodable {
    let id: Int64
    @Nullable var itemID: Int64?
    let title: String, channel: String
    @Nullable var url: String?
    @Nullable var positionSeconds: Int?
    let playedAt: Int64
    init(_ entry: HistoryEntry) {
        id = entry.id; itemID = entry.item; title = entry.title; channel = entry.channel; url = entry.url
        positionSeconds = entry.position; playedAt = entry.playedAt
    }
    enum CodingKeys: String, CodingKey {
        case id, itemID = "item_id", title, channel, url, positionSeconds = "position_seconds", playedAt = "played_at"
    }
}

struct SavedRecord: Encodable {
    let id: Int64
    @Nullable var itemID: Int64?
    let platform: String, videoID: String, videoURL: String, title: String
    @Nullable var description: String?
    @Nullable var thumbnailURL: String?
    @Nullable var durationSeconds: Int?
    @Nullable var uploadDate: Int64?
    @Nullable var channelName: String?
    @Nullable var channelURL: String?
    let watched: Bool
    @Nullable var watchedAt: Int64?
    let progressSeconds: Int
    @Nullable var notes: String?
    let savedAt: Int64, updatedAt: Int64
    init(_ video: SavedVideo) {
        id = video.id; itemID = video.itemID; platform = video.page.platform; videoID = video.page.videoID
        videoURL = video.page.videoURL; title = video.page.title; description = video.page.description
        thumbnailURL = video.page.thumbnailURL; durationSeconds = video.page.durationSeconds; uploadDate = video.page.uploadDate
        channelName = video.page.channelName; channelURL = video.page.channelURL; watched = video.watched
        watchedAt = video.watchedAt; progressSeconds = video.progressSeconds; notes = video.notes
        savedAt = video.savedAt; updatedAt = video.updatedAt
    }
    enum CodingKeys: String, CodingKey {
        case id, itemID = "item_id", platform, videoID = "video_id", videoURL = "video_url", title, description
        case thumbnailURL = "thumbnail_url", durationSeconds = "duration_seconds", uploadDate = "upload_date"
        case channelName = "channel_name", channelURL = "channel_url", watched, watchedAt = "watched_at"
        case progressSeconds = "progress_seconds", notes, savedAt = "saved_at", updatedAt = "updated_at"
    }
}

struct CollectionRecord: Encodable {
    struct Entry: Encodable {
        let position: Int, itemID: Int64, title: String, channel: String
        @Nullable var url: String?
        @Nullable var enclosureURL: String?
        let addedAt: Int64
        enum CodingKeys: String, CodingKey {
            case position, itemID = "item_id", title, channel, url, enclosureURL = "enclosure_url", addedAt = "added_at"
        }
    }
    let id: Int64, name: String
    @Nullable var description: String?
    @Nullable var coverURL: String?
    let sortOrder: Int, createdAt: Int64, updatedAt: Int64
    /// Its page's path while published (`/shared/TOKEN`, on the server), else null.
    @Nullable var published: String?
    let items: [Entry]
    init(_ collection: CollectionDetails, entries: [CollectionEntry], link: PublishedLink?) {
        id = collection.id; name = collection.name; description = collection.description; coverURL = collection.coverURL
        sortOrder = collection.sortOrder; createdAt = collection.createdAt; updatedAt = collection.updatedAt
        published = link.map { ShareLinks($0.token, base: nil).url }
        items = entries.map {
            Entry(position: $0.position, itemID: $0.item.id, title: $0.item.title, channel: $0.item.channel, url: $0.item.url,
                  enclosureURL: $0.item.enclosureURL, addedAt: $0.addedAt)
        }
    }
    enum CodingKeys: String, CodingKey {
        case id, name, description, coverURL = "cover_url", sortOrder = "sort_order", createdAt = "created_at"
        case updatedAt = "updated_at", published, items
    }
}

/// A collection someone else published that the user follows: what they followed it by, and
/// whether its owner withdrew it.
struct FollowedRecord: Encodable {
    let id: Int64, url: String, name: String
    @Nullable var description: String?
    let ownerName: String
    @Nullable var sourceURL: String?
    let followedAt: Int64
    @Nullable var withdrawnAt: Int64?
    init(_ followed: FollowedCollection) {
        id = followed.id; url = followed.url; name = followed.name; description = followed.description; ownerName = followed.ownerName
        sourceURL = followed.sourceURL; followedAt = followed.followedAt; withdrawnAt = followed.withdrawnAt
    }
    enum CodingKeys: String, CodingKey {
        case id, url, name, description, ownerName = "owner_name", sourceURL = "source_url", followedAt = "followed_at", withdrawnAt = "withdrawn_at"
    }
}

/// What plays, as the queue and the player keep it: a library item, a URL or a file.
struct TargetRecord: Encodable {
    @Nullable var itemID: Int64?
    @Nullable var url: String?
    @Nullable var file: String?
    init(_ target: MediaTarget) {
        switch target {
        case .item(let id): itemID = id
        case .url(let text): url = text
        case .file(let path): file = path
        }
    }
    enum CodingKeys: String, CodingKey { case itemID = "item_id", url, file }
}

struct QueueRecord: Encodable {
    let position: Int, title: String, target: TargetRecord
    init(_ entry: UpNextEntry) { position = entry.position; title = entry.title; target = TargetRecord(entry.target) }
}

struct PlayerRecord: Encodable {
    struct Last: Encodable {
        let target: TargetRecord, title: String, positionSeconds: Double
        enum CodingKeys: String, CodingKey { case target, title, positionSeconds = "position_seconds" }
    }
    @Nullable var volume: Double?
    @Nullable var lastPlayed: Last?
    init(volume: Double?, last: LastPlayed?) {
        self.volume = volume
        lastPlayed = last.map { Last(target: TargetRecord($0.target), title: $0.title, positionSeconds: $0.position) }
    }
    enum CodingKeys: String, CodingKey { case volume, lastPlayed = "last_played" }
}

struct DeviceRecord: Encodable {
    let id: String, caption: String, type: String, updatedAt: Int64
    init(_ device: SyncDevice) { id = device.id; caption = device.caption; type = device.type.rawValue; updatedAt = device.updatedAt }
    enum CodingKeys: String, CodingKey { case id, caption, type, updatedAt = "updated_at" }
}

struct EpisodeActionRecord: Encodable {
    let id: Int64, uploaded: Int64, podcast: String, episode: String
    @Nullable var guid: String?
    let action: String
    @Nullable var device: String?
    let timestamp: Int64
    @Nullable var started: Int?
    @Nullable var position: Int?
    @Nullable var total: Int?
    init(_ uploaded: UploadedEpisodeAction) {
        let a = uploaded.action
        id = uploaded.id; self.uploaded = uploaded.uploaded; podcast = a.podcast; episode = a.episode; guid = a.guid
        action = a.kind.rawValue; device = a.device; timestamp = a.timestamp; started = a.started; position = a.position; total = a.total
    }
}

struct SessionRecord: Encodable {
    let id: Int64
    @Nullable var device: String?
    let createdAt: Int64, expiresAt: Int64
    @Nullable var lastUsedAt: Int64?
    init(_ session: Session) {
        id = session.id; device = session.deviceName; createdAt = session.createdAt; expiresAt = session.expiresAt
        lastUsedAt = session.lastUsedAt
    }
    enum CodingKeys: String, CodingKey { case id, device, createdAt = "created_at", expiresAt = "expires_at", lastUsedAt = "last_used_at" }
}

/// An account at an OpenID provider the user signs in with: who the provider says they are. The
/// export's and `feedctl user identities --json`'s one shape.
public struct IdentityRecord: Encodable {
    let issuer: String, subject: String
    @Nullable var email: String?
    let linkedAt: Int64
    @Nullable var lastUsedAt: Int64?
    public init(_ identity: UserIdentity) {
        issuer = identity.issuer; subject = identity.subject; email = identity.email; linkedAt = identity.createdAt
        lastUsedAt = identity.lastUsedAt
    }
    enum CodingKeys: String, CodingKey { case issuer, subject, email, linkedAt = "linked_at", lastUsedAt = "last_used_at" }
}
