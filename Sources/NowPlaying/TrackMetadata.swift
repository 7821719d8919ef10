/// What is playing, shaped after MPRIS `Metadata` (the daemon maps it to `xesam:`/`mpris:` keys).
public struct TrackMetadata: Sendable, Equatable {
    /// Which track this is (the daemon turns it into an object path such as `/org/feedctl/item/ID`).
    public var key: TrackKey
    public var title: String?
    /// The channel or podcast author.
    public var artist: String?
    /// The channel or podcast title.
    public var album: String?
    /// Length in seconds; nil until known (live streams never know it).
    public var length: Double?
    public var artURL: String?
    public var url: String?
    /// When it was released, as its tags or feed say it (`2024-05-01`, `2024`).
    public var date: String?

    public init(key: TrackKey, title: String? = nil, artist: String? = nil, album: String? = nil,
                length: Double? = nil, artURL: String? = nil, url: String? = nil, date: String? = nil) {
        self.date = date
        self.key = key
        self.title = title
        self.artist = artist
        self.album = album
        self.length = length
        self.artURL = artURL
        self.url = url
    }
}

/// MPRIS `PlaybackStatus`; raw values are the MPRIS strings.
public enum PlaybackStatus: String, Sendable, Equatable {
    case playing = "Playing"
    case paused = "Paused"
    case stopped = "Stopped"
}
