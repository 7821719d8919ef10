import Downloads
import FeedModel
import LibraryStore

/// The config's automatic downloads, kept by the daemon after each scheduled sync round:
/// `downloads.auto_download = N` keeps the newest N episodes of every active podcast channel
/// downloaded (as `feedctl download --auto N` does, without pruning: what a person downloaded by
/// hand stays); `downloads.delete_played_after = D` deletes the download of an item marked
/// watched more than D days ago.
struct AutoDownloads: Sendable {
    let keep: Int
    let deletePlayedAfterDays: Double
    let catalog: any DownloadCatalog
    let store: DownloadStore
    let log: @Sendable (String) -> Void

    var isOn: Bool { keep > 0 || deletePlayedAfterDays > 0 }

    func run() async {
        let downloader = Downloader(catalog: catalog, store: store)
        if keep > 0 {
            do {
                let report = try await downloader.auto(keep: keep)
                let fetched = report.results.filter { $0.status == .downloaded }.count
                let failed = report.results.filter { $0.status == .failed }
                if fetched > 0 || !failed.isEmpty {
                    log("auto-download: newest \(keep) per podcast channel: \(fetched) downloaded, \(failed.count) failed")
                }
                for result in failed { log("auto-download: \(result.id): \(result.error ?? "failed")") }
            } catch {
                log("auto-download: \(error.description)")
            }
        }
        if deletePlayedAfterDays > 0 {
            let before = Clock.now() - Int64(deletePlayedAfterDays * 86_400)
            do {
                let (removed, errors) = try await downloader.removeWatched(before: before)
                let items = Set(removed.map(\.itemID)).count
                if items > 0 {
                    let bytes = removed.reduce(Int64(0)) { $0 + $1.bytes }
                    log("auto-download: deleted the downloads of \(items) item(s) watched over \(Self.days(deletePlayedAfterDays)) ago (\(bytes) bytes)")
                }
                for error in errors { log("auto-download: \(error.description)") }
            } catch {
                log("auto-download: \(error.description)")
            }
        }
    }

    static func days(_ value: Double) -> String {
        value.rounded() == value ? "\(Int(value)) day\(value == 1 ? "" : "s")" : "\(value) days"
    }
}
