import FeedctlControl
import CSDBus
import NowPlaying

/// Gives every track the object path MPRIS wants as `mpris:trackid`: library items keep theirs
/// (`/org/feedctl/item/ID`); URLs and files, whose ids are not paths, get `/org/feedctl/track/N`,
/// a new N whenever a different one starts. Never under /org/mpris, which the spec reserves.
struct TrackPaths {
    private var lastKey: String?
    private var lastPath = ""
    private var counter = 0

    mutating func path(for track: TrackMetadata) -> String {
        if Self.isUsable(track.trackID) { return track.trackID }
        // The length arrives after the start; a new title or URL is a new track.
        let key = [track.trackID, track.url ?? "", track.title ?? ""].joined(separator: "\u{1}")
        if key != lastKey {
            counter += 1
            lastKey = key
            lastPath = "/org/feedctl/track/\(counter)"
        }
        return lastPath
    }

    static func isUsable(_ path: String) -> Bool {
        guard !path.hasPrefix("/org/mpris/"), path != "/org/mpris" else { return false }
        return path.withCString { sd_bus_object_path_is_valid($0) } > 0
    }
}
