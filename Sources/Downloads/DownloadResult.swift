import FeedModel
import LibraryStore

/// What became of one item in a `download` run (`download --json` prints a list of these).
public struct DownloadResult: Sendable, Equatable, Encodable {
    public enum Status: String, Sendable, Encodable {
        /// Fetched now (or resumed and finished now).
        case downloaded
        /// The file was already there; nothing was fetched.
        case already
        case failed
    }

    public var id: Int64
    @Nullable public var title: String?
    @Nullable public var channel: String?
    public var status: Status
    /// The finished file; nil when failed.
    @Nullable public var path: String?
    @Nullable public var bytes: Int64?
    /// The one-line error when failed.
    @Nullable public var error: String?

    public init(id: Int64, title: String?, channel: String?, status: Status, path: String? = nil,
                bytes: Int64? = nil, error: String? = nil) {
        self.id = id; self.title = title; self.channel = channel; self.status = status
        self.path = path; self.bytes = bytes; self.error = error
    }

    enum CodingKeys: String, CodingKey { case id, title, channel, status, path, bytes, error }
}

/// Progress of a `download` run, for progress bars. Sent from any thread: keep handlers quick.
public enum DownloadEvent: Sendable {
    case started(DownloadItem)
    /// Bytes in the file so far and the expected total, when known.
    case progress(itemID: Int64, received: Int64, total: Int64?)
    case finished(DownloadResult)
}

/// What `download --auto N` did (`download --auto N --json`).
public struct AutoDownloadReport: Sendable, Equatable, Encodable {
    public struct ChannelPlan: Sendable, Equatable, Encodable {
        public var id: Int64
        public var name: String
        /// The channel's newest episodes with enclosures, newest first: what is kept downloaded.
        public var items: [Int64]
    }

    public var keep: Int
    public var channels: [ChannelPlan]
    /// One per item in `channels`, in the same order; then one per file `--prune` failed to delete.
    public var results: [DownloadResult]
    /// Files deleted by `--prune` (empty without it).
    public var pruned: [DownloadEntry]
}
