import Downloads
import LibrarySQLite

/// `downloads.auto_download = N` in the config: after each scheduled sync round the daemon keeps
/// the newest N episodes of every active podcast channel downloaded (as `feedctl download --auto
/// N` does, without pruning: what a person downloaded by hand stays).
struct AutoDownloads: Sendable {
    let keep: Int
    let library: SQLiteLibrary
    let log: @Sendable (String) -> Void

    func run() async {
        guard keep > 0 else { return }
        let downloader = Downloader(catalog: library, store: DownloadStore(libraryPath: library.path))
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
}
