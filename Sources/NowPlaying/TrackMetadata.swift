/// What is playing, shaped after MPRIS `Metadata` (the daemon maps it to `xesam:`/`mpris:` keys).
public struct TrackMetadata: Sendable, Equatable {
    /// Stable track id (the daemon turns it into an object path such as `/org/feedctl/item/ID`).
    public var trackID: String
    public var title: String?
    /// The channel or podcast author.
    public var artist: String?
    /// The channel or podcast title.
    public var album: String?
    /// Length in seconds; nil until known (live streams never know it).
    public var length: Double?
    public var artURL: String?
    public var url: String?
    /// The library item id, when the track comes from the library.
    public var itemID: Int64?

    public init(trackID: String, title: String? = nil, artist: String? = nil, album: String? = nil,
                length: Double? = nil, artURL: String? = nil, url: String? = nil, itemID: Int64? = nil) {
        self.trackID = trackID
        self.title = title
        self.artist = artist
        self.album = album
        self.length = length
        self.artURL = artURL
        self.url = url
        self.itemID = itemID
    }
}

/// MPRIS `PlaybackStatus`; raw values are the MPRIS strings.
public enum PlaybackStatus: String, Sendable, Equatable {
    case playing = "Playing"
    case paused = "Paused"
    case stopped = "Stopped"
}
