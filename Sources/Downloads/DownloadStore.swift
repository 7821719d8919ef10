import Foundation
import LibraryStore
#if canImport(Glibc)
import Glibc
#endif

/// The media directory, where downloaded episodes live. The files are the truth (the library's
/// schema knows nothing of downloads): `<id>_<title>.<ext>` is a finished download, and
/// `<id>_<title>.<ext>.part` one in progress or interrupted. A `.part` is renamed only once its
/// transfer completed, so a file without `.part` is always complete. The id is the key: the
/// library never hands one out twice. Files named before that rule (`<id>-<title>.<ext>`) are
/// *legacy*: listed, but nobody's download until `adopt` vouches for them (see `DownloadName`).
///
/// Thread-safe (a value holding a path); cross-process safety comes from `PartLock`.
public struct DownloadStore: Sendable {
    public let directory: String

    /// `directory` as the composition code decides it (`LibraryOpener.mediaDirectory`: the
    /// setting, else beside a SQLite library): this module derives no path from the library.
    public init(directory: String) { self.directory = directory }

    func path(_ name: String) -> String { (directory as NSString).appendingPathComponent(name) }

    /// Every download and `.part`, by item id then path. A missing directory has none; files
    /// that are not ours (no id prefix, hidden, not regular files) are ignored.
    public func entries() throws(DownloadError) -> [DownloadEntry] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch let error as CocoaError where error.code == .fileReadNoSuchFile {
            return []
        } catch {
            throw DownloadError(itemID: nil, kind: .fileSystem, reason: "can't list \(directory): \(error.localizedDescription)")
        }
        var found: [DownloadEntry] = []
        for name in names where !name.hasPrefix(".") {
            guard let (id, partial, legacy) = DownloadName.parse(name) else { continue }
            let full = path(name)
            var info = stat()
            // lstat: a symlink dropped into the directory is not a download.
            guard lstat(full, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            found.append(DownloadEntry(itemID: id, path: full, bytes: Int64(info.st_size), complete: !partial,
                                       legacy: legacy, modified: Int64(info.st_mtim.tv_sec)))
        }
        return found.sorted { ($0.itemID, $0.path) < ($1.itemID, $1.path) }
    }

    /// The files of item `id` (legacy files are nobody's until adopted).
    public func entries(item id: Int64) throws(DownloadError) -> [DownloadEntry] {
        try entries().filter { $0.itemID == id && !$0.legacy }
    }

    /// Renames `item`'s legacy files (named before ids were never reused) to the current form
    /// when they can only be its own: a file last written before the item was discovered is
    /// the download of an earlier item that had the same id (ids were reused only after a
    /// removal, and an item is discovered before anything downloads it). Files that fail the
    /// test are left as they are (listed as nobody's; the item downloads afresh). Returns the
    /// adopted files under their new names.
    @discardableResult
    public func adopt(_ item: DownloadItem) throws(DownloadError) -> [DownloadEntry] {
        guard let discovered = item.discoveredAt else { return [] }
        var adopted: [DownloadEntry] = []
        for file in try entries() where file.legacy && file.itemID == item.id && file.modified >= discovered {
            let name = DownloadName.current(forLegacy: (file.path as NSString).lastPathComponent, id: item.id)
            let target = path(name)
            // Never over an existing file: rename would replace it.
            var existing = stat()
            guard lstat(target, &existing) != 0, rename(file.path, target) == 0 else { continue }
            var entry = file
            entry.path = target
            entry.legacy = false
            adopted.append(entry)
        }
        return adopted
    }

    /// `adopt` for every legacy file whose id the library has.
    public func adoptLegacy(in catalog: any DownloadCatalog) async throws(DownloadError) {
        let ids = Array(Set(try entries().filter(\.legacy).map(\.itemID))).sorted()
        guard !ids.isEmpty else { return }
        let items: [DownloadItem]
        do {
            items = try await catalog.downloadItems(ids: ids)
        } catch {
            throw DownloadError(itemID: nil, kind: .library, reason: error.description)
        }
        for item in items { try adopt(item) }
    }

    /// Deletes the files of all these items (for `channel remove`); items without files are
    /// skipped. Returns what was deleted; a file that could not be deleted is an error in the list.
    public func remove(items ids: [Int64]) -> (removed: [DownloadEntry], errors: [DownloadError]) {
        var removed: [DownloadEntry] = [], errors: [DownloadError] = []
        let wanted = Set(ids)
        let owned: Set<Int64>
        do {
            owned = Set(try entries().filter { !$0.legacy && wanted.contains($0.itemID) }.map(\.itemID))
        } catch {
            return ([], [error])
        }
        for id in owned.sorted() {
            do { removed += try remove(item: id) } catch { errors.append(error) }
        }
        return (removed, errors)
    }

    /// The finished download of item `id`, if there is one.
    public func completedFile(item id: Int64) -> String? {
        (try? entries(item: id))?.first { $0.complete }?.path
    }

    /// Deletes item `id`'s file and any `.part`; returns what was deleted. A `.part` another
    /// process is still writing is left alone (`busy`).
    @discardableResult
    public func remove(item id: Int64) throws(DownloadError) -> [DownloadEntry] {
        let files = try entries(item: id)
        guard !files.isEmpty else { throw DownloadError(itemID: id, kind: .notDownloaded, reason: "not downloaded") }
        var removed: [DownloadEntry] = []
        for file in files {
            // Hold the .part's lock while unlinking it, so a running download is not cut from under.
            let lock = file.complete ? nil : try PartLock(path: file.path, itemID: id, create: false)
            if !file.complete && lock == nil { continue }  // vanished meanwhile
            guard unlink(file.path) == 0 || errno == ENOENT else {
                throw DownloadError(itemID: id, kind: .fileSystem, reason: "can't remove \(file.path): \(String(cString: strerror(errno)))")
            }
            withExtendedLifetime(lock) {}
            removed.append(file)
        }
        return removed
    }

    func createDirectory() throws(DownloadError) {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw DownloadError(itemID: nil, kind: .fileSystem, reason: "can't create \(directory): \(error.localizedDescription)")
        }
    }
}

/// An exclusive `flock` on a `.part`, so two feedctl processes never write the same download
/// (nor one deletes it under the other). Released when the value goes.
final class PartLock {
    private let fd: Int32
    let path: String

    /// Nil when `create` is false and the file does not exist. Throws `busy` when another
    /// process holds the lock.
    init?(path: String, itemID: Int64, create: Bool) throws(DownloadError) {
        let fd = open(path, O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0), 0o644)
        guard fd >= 0 else {
            if errno == ENOENT && !create { return nil }
            throw DownloadError(itemID: itemID, kind: .fileSystem, reason: "can't open \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            throw DownloadError(itemID: itemID, kind: .busy, reason: "another feedctl is downloading it (\(path))")
        }
        self.fd = fd
        self.path = path
    }

    deinit { close(fd) }

    /// True while `path` still names the locked file: a download that finished between our
    /// `open` and `flock` renamed it away, and we locked a file that is no longer the `.part`.
    var isCurrent: Bool {
        var mine = stat(), now = stat()
        return fstat(fd, &mine) == 0 && stat(path, &now) == 0 && mine.st_ino == now.st_ino && mine.st_dev == now.st_dev
    }

    /// Flushes the file to disk, so a crash after the rename cannot leave a complete-looking
    /// name over missing data.
    func sync() -> Bool { fsync(fd) == 0 }
}
