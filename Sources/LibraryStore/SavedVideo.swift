import FeedModel

/// A saved video (the API's `/saved-videos`): a library item, or a page saved by its URL that
/// the library does not hold. Either way it has its own id, notes and watch state (a library
/// item's is the item's own, shared with the feed; a page's is kept with it).
public struct SavedVideo: Sendable, Equatable {
    /// The saved video's own id (not the item's).
    public var id: Int64
    /// The library item, when it is one.
    public var itemID: Int64?
    /// The library channel of that item.
    public var libraryChannelID: Int64?
    public var page: SavedPage
    public var watched: Bool
    public var watchedAt: Int64?
    public var progressSeconds: Int
    public var notes: String?
    public var savedAt: Int64
    public var updatedAt: Int64

    public init(id: Int64, itemID: Int64?, libraryChannelID: Int64?, page: SavedPage, watched: Bool, watchedAt: Int64?,
                progressSeconds: Int, notes: String?, savedAt: Int64, updatedAt: Int64) {
        self.id = id; self.itemID = itemID; self.libraryChannelID = libraryChannelID; self.page = page
        self.watched = watched; self.watchedAt = watchedAt; self.progressSeconds = progressSeconds
        self.notes = notes; self.savedAt = savedAt; self.updatedAt = updatedAt
    }
}

/// What names and describes a saved page: for a library item, read from the item; for a page
/// saved by URL, what the client sent or the page said (Open Graph, JSON-LD, oEmbed).
/// `platform` is the backend's free-form platform name (`youtube`, `rumble`, `podcast`, or any
/// other a client sends, such as `odysee`): pages from anywhere can be saved.
public struct SavedPage: Sendable, Equatable {
    public var platform: String
    public var videoID: String
    public var videoURL: String
    public var title: String
    public var description: String?
    public var thumbnailURL: String?
    public var durationSeconds: Int?
    public var viewCount: Int?
    /// Unix seconds.
    public var uploadDate: Int64?
    public var channelName: String?
    /// The platform's id of the channel (the backend's `channel_id`, a string).
    public var channelRef: String?
    public var channelURL: String?

    public init(platform: String, videoID: String, videoURL: String, title: String, description: String? = nil,
                thumbnailURL: String? = nil, durationSeconds: Int? = nil, viewCount: Int? = nil, uploadDate: Int64? = nil,
                channelName: String? = nil, channelRef: String? = nil, channelURL: String? = nil) {
        self.platform = platform; self.videoID = videoID; self.videoURL = videoURL; self.title = title
        self.description = description; self.thumbnailURL = thumbnailURL; self.durationSeconds = durationSeconds
        self.viewCount = viewCount; self.uploadDate = uploadDate; self.channelName = channelName
        self.channelRef = channelRef; self.channelURL = channelURL
    }
}

/// Which saved videos to list (`GET /api/saved-videos`), most recently saved first.
public struct SavedVideoQuery: Sendable, Equatable {
    public var platform: String?
    public var watched: Bool?
    public var limit: Int
    public var offset: Int

    public init(platform: String? = nil, watched: Bool? = nil, limit: Int = 50, offset: Int = 0) {
        self.platform = platform; self.watched = watched; self.limit = limit; self.offset = offset
    }
}

/// A change to a saved video: each field given is set, the others stay.
public struct SavedVideoChange: Sendable, Equatable {
    public var notes: String?
    public var watched: Bool?
    public var progressSeconds: Int?

    public init(notes: String? = nil, watched: Bool? = nil, progressSeconds: Int? = nil) {
        self.notes = notes; self.watched = watched; self.progressSeconds = progressSeconds
    }
}

extension SavedPage {
    /// The page as a store keeps it: its platform without surrounding spaces and in lower case
    /// (saving `YouTube` and `youtube ` finds the same page), and refused with the line a person
    /// sees when what names it is blank or a count is negative.
    public func validated() throws(LibraryError) -> SavedPage {
        var page = self
        page.platform = Self.trimmingSpaces(platform).lowercased()
        for (name, value) in [("platform", page.platform), ("video_id", videoID), ("video_url", videoURL), ("title", title)]
        where Self.trimmingSpaces(value).isEmpty {
            throw .invalid("\(name) must not be empty")
        }
        if let durationSeconds, durationSeconds < 0 { throw .invalid("duration_seconds must not be negative") }
        if let viewCount, viewCount < 0 { throw .invalid("view_count must not be negative") }
        return page
    }

    /// `text` without spaces and tabs at its ends: what Foundation's `.whitespaces` trims (its
    /// fixed list: the Unicode space separators, a tab and U+200B), so a line break is kept.
    private static func trimmingSpaces(_ text: String) -> String {
        func isSpace(_ scalar: Unicode.Scalar) -> Bool {
            switch scalar.value {
            case 0x09, 0x20, 0xA0, 0x1680, 0x2000...0x200B, 0x202F, 0x205F, 0x3000: true
            default: false
            }
        }
        let scalars = text.unicodeScalars
        guard let start = scalars.firstIndex(where: { !isSpace($0) }), let end = scalars.lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(scalars[start...end])
    }
}

extension SavedVideoChange {
    /// What the change does to the watch state (nil: nothing). Watched or not resets the
    /// progress, as `watched` does for the feed, to the progress given with it; a progress alone
    /// is a position (`WatchRule` may count it heard).
    public func watchUpdate() throws(LibraryError) -> WatchUpdate? {
        if let watched { return try WatchUpdate.mark(watched: watched, progress: progressSeconds ?? 0).validated() }
        if let progressSeconds { return try WatchUpdate.position(seconds: progressSeconds).validated() }
        return nil
    }
}
