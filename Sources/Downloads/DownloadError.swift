import HTTPFetch

/// Why a download (or a download-directory operation) failed. `description` is the one line a
/// person sees: the item, then the URL or file, then the cause.
public struct DownloadError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The item is not in the library.
        case noItem
        /// The item has no enclosure (YouTube and Rumble items have none).
        case noEnclosure
        /// Another process is downloading (or removing) this item right now.
        case busy
        /// The file's size is not the one the server announced for it.
        case sizeMismatch
        /// The item has no file in the media directory.
        case notDownloaded
        /// The transfer failed; the `.part` stays for the next attempt.
        case fetch(FetchError.Kind)
        /// The media directory or a file in it could not be created, read, renamed or removed.
        case fileSystem
        /// The library could not be read.
        case library
    }

    /// The library id of the item, when the error is about one.
    public var itemID: Int64?
    public var kind: Kind
    /// The cause, without the item (`https://x/ep.mp3: HTTP 404 Not Found`).
    public var reason: String

    public init(itemID: Int64?, kind: Kind, reason: String) {
        self.itemID = itemID
        self.kind = kind
        self.reason = reason
    }

    public var description: String { itemID.map { "item \($0): \(reason)" } ?? reason }
}

/// Ids a multi-item download was given that cannot be downloaded (not in the library, no
/// enclosure): one error per id, and nothing was downloaded.
public struct DownloadCheckFailure: Error, Sendable, Equatable {
    public var errors: [DownloadError]
}
