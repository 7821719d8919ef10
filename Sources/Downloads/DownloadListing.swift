import FeedModel
import LibraryStore

/// A file in the media directory with its item, as `download list --json` prints it.
public struct DownloadListing: Sendable, Equatable, Encodable {
    public var id: Int64
    /// Nil when the item is no longer in the library (its channel was removed).
    @Nullable public var title: String?
    @Nullable public var channel: String?
    @Nullable public var channelID: Int64?
    public var path: String
    /// The file's size now.
    public var bytes: Int64
    /// The enclosure length the feed announced, when it did.
    @Nullable public var expectedBytes: Int64?
    /// False for a `.part` (interrupted or in progress; `download ITEM` resumes it).
    public var complete: Bool

    enum CodingKeys: String, CodingKey {
        case id, title, channel, channelID = "channel_id", path, bytes, expectedBytes = "expected_bytes", complete
    }
}

extension DownloadStore {
    /// Every file in the media directory with its item's title and channel, by item id.
    /// Legacy files that `adopt` cannot vouch for are listed without a title (as nobody's).
    public func listing(in catalog: any DownloadCatalog) async throws(DownloadError) -> [DownloadListing] {
        try await adoptLegacy(in: catalog)
        let files = try entries()
        let items: [DownloadItem]
        do {
            items = try await catalog.downloadItems(ids: Array(Set(files.map(\.itemID))))
        } catch {
            throw DownloadError(itemID: nil, kind: .library, reason: error.description)
        }
        let byID = Dictionary(items.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        return files.map { file in
            let item = file.legacy ? nil : byID[file.itemID]
            return DownloadListing(id: file.itemID, title: item?.title, channel: item?.channel, channelID: item?.channelID,
                                   path: file.path, bytes: file.bytes, expectedBytes: item?.enclosureLength,
                                   complete: file.complete)
        }
    }
}
