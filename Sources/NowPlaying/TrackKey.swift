/// Which track something is about: the key progress is saved under and the track MPRIS names.
/// Typed, so nobody parses a string back to learn whether it is a library item.
public enum TrackKey: Hashable, Sendable {
    /// A library item, by its id.
    case item(Int64)
    /// An http(s) URL played directly.
    case url(String)
    /// A local file the user named, by its path.
    case file(String)

    /// The library item id, when the track is one.
    public var itemID: Int64? {
        if case .item(let id) = self { return id }
        return nil
    }
}
