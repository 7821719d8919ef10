import ArgumentParser
import Downloads
import FeedModel
import CLISupport
import Foundation

/// `feedctl download ITEM…`, `download --auto N [--prune]`, `download list`, `download remove`.
/// Files go to the media directory (`--media-dir`; `LibraryOpener.mediaDirectory`).
struct DownloadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "download",
        abstract: "Download episodes for offline listening (into the media directory: --media-dir, else media/ beside the library).",
        subcommands: [DownloadGetCommand.self, DownloadListCommand.self, DownloadRemoveCommand.self],
        defaultSubcommand: DownloadGetCommand.self)
}

struct DownloadGetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Download items (`feedctl download ITEM…`), or the newest N episodes of every podcast channel (--auto N).")
    @OptionGroup var library: LibraryOptions
    @OptionGroup var media: MediaOptions
    @OptionGroup var output: OutputOptions
    @Option(help: ArgumentHelp("Keep the newest N episodes of each active podcast channel downloaded.", valueName: "N"))
    var auto: Int?
    @Flag(help: "With --auto: delete those channels' other downloads.") var prune = false
    @Option(help: "Downloads at a time (1-16).") var jobs = 3
    @Argument(help: "Library item ids.", completion: .itemIDs) var items: [Int64] = []

    func validate() throws {
        if auto == nil && items.isEmpty { throw ValidationError("give item ids to download, or --auto N") }
        if auto != nil && !items.isEmpty { throw ValidationError("give either item ids or --auto N, not both") }
        if let auto, auto < 1 { throw ValidationError("--auto needs at least 1 episode per channel (got \(auto))") }
        if prune && auto == nil { throw ValidationError("--prune only goes with --auto N") }
        if !(1...16).contains(jobs) { throw ValidationError("--jobs must be between 1 and 16 (got \(jobs))") }
    }

    func run() async throws {
        try await runReporting {
            let store = DownloadStore(directory: try media.directory(for: library))
            let downloader = Downloader(catalog: try await library.open(), store: store, concurrency: jobs)
            let display = DownloadDisplay(bar: !output.json && stderrIsTTY, lines: !output.json)
            let results: [DownloadResult]
            if let auto {
                let report = try await downloader.auto(keep: auto, prune: prune, events: display.handle)
                display.finish()
                results = report.results
                if output.json { try printJSON(report) } else { printSummary(report) }
            } else {
                // Every id is checked before anything is fetched: a typo downloads nothing.
                switch try await downloader.check(ids: items) {
                case .failure(let bad):
                    throw CommandError("nothing downloaded: " + bad.errors.map(\.description).joined(separator: "; "))
                case .success(let found):
                    results = await downloader.download(found, events: display.handle)
                }
                display.finish()
                if output.json { try printJSON(results) }
            }
            let failed = results.filter { $0.status == .failed }
            guard !failed.isEmpty else { return }
            // Each failure was printed as it happened; the last line counts them.
            let message = "\(failed.count) of \(Formats.count(results.count, "download")) failed (items \(failed.map { String($0.id) }.joined(separator: ", ")))"
            if failed.count == results.count { throw CommandError(message) }
            throw PartialFailure(message)
        }
    }

    private func printSummary(_ report: AutoDownloadReport) {
        let byID = Dictionary(report.results.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        for channel in report.channels {
            let statuses = channel.items.compactMap { byID[$0]?.status }
            let count = { (s: DownloadResult.Status) in statuses.filter { $0 == s }.count }
            print("channel \(channel.id) \(channel.name): newest \(channel.items.count): \(count(.downloaded)) downloaded, \(count(.already)) already there, \(count(.failed)) failed")
        }
        for file in report.pruned { print("pruned     \(file.itemID) \(file.path)") }
        if report.channels.isEmpty { print("no active podcast channels") }
    }
}

struct DownloadListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List downloaded (and partly downloaded) items.")
    @OptionGroup var library: LibraryOptions
    @OptionGroup var media: MediaOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await runReporting {
            let store = DownloadStore(directory: try media.directory(for: library))
            let files = try await store.listing(in: try await library.open())
            if output.json { return try printJSON(files) }
            if files.isEmpty { print("nothing downloaded"); return }
            for file in files {
                let size = file.complete || file.expectedBytes == nil
                    ? Formats.bytes(file.bytes) : "\(Formats.bytes(file.bytes))/\(Formats.bytes(file.expectedBytes ?? 0))"
                let what = file.title.map { "\(file.channel ?? ""): \($0)" } ?? "(not an item in the library)"
                print("\(Formats.pad(String(file.id), 6, right: true))  \(file.complete ? "complete" : "partial ")  \(Formats.pad(size, 9, right: true))  \(what)  \(file.path)")
            }
        }
    }
}

struct DownloadRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Delete items' downloaded files (and any partial download); all or none.")
    @OptionGroup var library: LibraryOptions
    @OptionGroup var media: MediaOptions
    @OptionGroup var output: OutputOptions
    @Argument(help: "Library item ids.", completion: .itemIDs) var items: [Int64]

    struct Removal: Encodable {
        var id: Int64
        var removed: [String]
        @Nullable var error: String? = nil
    }

    func run() async throws {
        try await runReporting {
            // The library is opened only to refuse one that does not exist, as every command does.
            _ = try await library.open()
            let store = DownloadStore(directory: try media.directory(for: library))
            // The multi-id rule: every id is checked first; one without a download removes none.
            let ids = ItemIDs.unique(items)
            let missing = ids.filter { ((try? store.entries(item: $0)) ?? []).isEmpty }
            if !missing.isEmpty {
                let which = missing.count == 1 ? "item \(missing[0]): not downloaded" : "items \(ItemIDs.list(missing)): not downloaded"
                throw CommandError(which + (ids.count > missing.count ? "; nothing removed" : ""))
            }
            var removals: [Removal] = []
            for id in ids {
                do {
                    let files = try store.remove(item: id)
                    removals.append(Removal(id: id, removed: files.map(\.path)))
                    if !output.json { files.forEach { print("removed \(id) \($0.path)") } }
                } catch {
                    removals.append(Removal(id: id, removed: [], error: String(describing: error)))
                    printError(String(describing: error))
                }
            }
            if output.json { try printJSON(removals) }
            if removals.contains(where: { $0.error != nil }) { throw ExitCode(1) }
        }
    }
}

/// Shows a download run: a line per finished item on stdout (unless `lines` is off, for
/// --json), errors on stderr always, and on a
/// terminal one progress line on stderr (items done, bytes so far). Events come from the fetch
/// thread and tasks, hence the lock; redraws are throttled so chunks don't each cost a write.
final class DownloadDisplay: @unchecked Sendable {
    private let bar: Bool
    private let lines: Bool
    private let lock = NSLock()
    private var started = 0, finished = 0
    private var received: [Int64: (Int64, Int64?)] = [:]
    private var lastDraw = ContinuousClock.now - .seconds(1)
    private var label = ""

    init(bar: Bool, lines: Bool) { self.bar = bar; self.lines = lines }

    var handle: @Sendable (DownloadEvent) -> Void { { [self] event in self.on(event) } }

    private func on(_ event: DownloadEvent) {
        lock.lock(); defer { lock.unlock() }
        switch event {
        case .started(let item):
            started += 1
            label = item.title
            draw(force: true)
        case .progress(let id, let bytes, let total):
            received[id] = (bytes, total)
            draw(force: false)
        case .finished(let result):
            finished += 1
            received[result.id] = nil
            clear()
            switch result.status {
            case .downloaded: if lines { print("downloaded \(result.id) \(result.path ?? "") (\(Formats.bytes(result.bytes ?? 0)))") }
            case .already: if lines { print("already    \(result.id) \(result.path ?? "")") }
            case .failed: printError(result.error ?? "item \(result.id): failed")  // with --json too: it's stderr
            }
            draw(force: true)
        }
    }

    func finish() {
        lock.lock(); defer { lock.unlock() }
        clear()
    }

    private func clear() {
        guard bar else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }

    private func draw(force: Bool) {
        guard bar, started > finished else { return }
        let now = ContinuousClock.now
        guard force || now - lastDraw >= .milliseconds(100) else { return }
        lastDraw = now
        // Bytes of the downloads running now; a bar only when every one announced its size.
        let got = received.values.reduce(Int64(0)) { $0 + $1.0 }
        let totals = received.values.compactMap(\.1)
        var bytes = Formats.bytes(got)
        var bar = ""
        if totals.count == received.count, case let total = totals.reduce(0, +), total > 0 {
            let width = 24, filled = Int(min(1, Double(got) / Double(total)) * Double(width))
            bar = "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] "
            bytes += "/" + Formats.bytes(total)
        }
        let line = "\r\(bar)\(bytes)  \(finished)/\(started) done  \(label.prefix(40))\u{1B}[K"
        FileHandle.standardError.write(Data(line.utf8))
    }
}
