import CSDBus
import NowPlaying

/// Gives every track the object path MPRIS wants as `mpris:trackid`: library items get
/// `/org/feedctl/item/ID`; URLs and files get `/org/feedctl/track/N`, a new N whenever a
/// different one starts. Never under /org/mpris, which the spec reserves.
struct TrackPaths {
    private var lastKey: TrackKey?
    private var lastPath = ""
    private var counter = 0

    mutating func path(for track: TrackMetadata) -> String {
        if case .item(let id) = track.key {
            let path = "/org/feedctl/item/\(id)"
            if Self.isUsable(path) { return path }
        }
        if track.key != lastKey {
            counter += 1
            lastKey = track.key
            lastPath = "/org/feedctl/track/\(counter)"
        }
        return lastPath
    }

    static func isUsable(_ path: String) -> Bool {
        guard !path.hasPrefix("/org/mpris/"), path != "/org/mpris" else { return false }
        return path.withCString { sd_bus_object_path_is_valid($0) } > 0
    }
}
