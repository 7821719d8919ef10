/// A file in the media directory: a finished download or a `.part` waiting to be resumed.
public struct DownloadEntry: Sendable, Equatable, Encodable {
    /// The library id of the item (from the file name's prefix).
    public var itemID: Int64
    public var path: String
    /// The file's size now.
    public var bytes: Int64
    /// False for a `.part`: an unfinished download that the next `download` resumes.
    public var complete: Bool
    /// Named before ids were never reused (`<id>-…`): the id may now be another item's, so the
    /// file is nobody's download until `DownloadStore.adopt` vouches for it.
    public var legacy: Bool
    /// When the file was last written (Unix seconds).
    public var modified: Int64

    public init(itemID: Int64, path: String, bytes: Int64, complete: Bool, legacy: Bool = false, modified: Int64 = 0) {
        self.itemID = itemID; self.path = path; self.bytes = bytes; self.complete = complete
        self.legacy = legacy; self.modified = modified
    }

    enum CodingKeys: String, CodingKey { case itemID = "id", path, bytes, complete }
}
