/// A file in the media directory: a finished download or a `.part` waiting to be resumed.
public struct DownloadEntry: Sendable, Equatable, Encodable {
    /// The library id of the item (from the file name's prefix).
    public var itemID: Int64
    public var path: String
    /// The file's size now.
    public var bytes: Int64
    /// False for a `.part`: an unfinished download that the next `download` resumes.
    public var complete: Bool

    public init(itemID: Int64, path: String, bytes: Int64, complete: Bool) {
        self.itemID = itemID; self.path = path; self.bytes = bytes; self.complete = complete
    }

    enum CodingKeys: String, CodingKey { case itemID = "id", path, bytes, complete }
}
