import NowPlaying

/// What a media file says about itself: its container's tags (ID3, MP4 atoms, Vorbis comments)
/// and, once written to a file, its cover art. Read once when an item opens (`Decoder.tags`).
public struct MediaTags: Sendable, Equatable {
    public var title: String?
    public var artist: String?
    public var album: String?
    public var date: String?
    /// A `file://` URL of the cover art the file carries, once the player wrote it out.
    public var artURL: String?

    public init(title: String? = nil, artist: String? = nil, album: String? = nil, date: String? = nil,
                artURL: String? = nil) {
        self.title = title; self.artist = artist; self.album = album; self.date = date; self.artURL = artURL
    }

    /// Tag values are file data: without control characters, trimmed, at most 300 characters,
    /// nil when empty.
    static func clean(_ raw: String) -> String? {
        let printable = String(raw.unicodeScalars.filter { !($0.properties.generalCategory == .control) }
                                   .map(Character.init))
        let trimmed = printable.trimmingWhitespace
        return trimmed.isEmpty ? nil : String(trimmed.prefix(300))
    }
}

extension TrackMetadata {
    /// The metadata shown for a track whose file carries `tags`, as mpv shows them. A library
    /// item keeps what its feed says (the feed is the better source: the episode's title, its
    /// channel) and takes from the tags only what the feed left out; for a URL or a file, whose
    /// title until now is only its file name, the tags win.
    func filled(from tags: MediaTags) -> TrackMetadata {
        var metadata = self
        let feedFirst = key.itemID != nil
        func pick(_ ours: String?, _ theirs: String?) -> String? {
            feedFirst ? (ours ?? theirs) : (theirs ?? ours)
        }
        metadata.title = pick(title, tags.title)
        metadata.artist = pick(artist, tags.artist)
        metadata.album = pick(album, tags.album)
        metadata.date = pick(date, tags.date)
        metadata.artURL = pick(artURL, tags.artURL)
        return metadata
    }
}

/// A picture a media file carries (ID3 APIC, MP4 `covr`, a FLAC/Opus picture block).
struct CoverArt: Equatable {
    var bytes: [UInt8]
    /// `jpg` or `png`: the formats cover art comes in and that desktops show.
    var fileExtension: String
}
