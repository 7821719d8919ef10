import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The media directory, where downloaded episodes live. The files are the truth (the library's
/// schema knows nothing of downloads): `<id>-<title>.<ext>` is a finished download, and
/// `<id>-<title>.<ext>.part` one in progress or interrupted. A `.part` is renamed only once its
/// size is checked, so a file without `.part` is always complete.
///
/// Thread-safe (a value holding a path); cross-process safety comes from `PartLock`.
public struct DownloadStore: Sendable {
    public let directory: String

    public init(directory: String) { self.directory = directory }

    /// `media/` beside the library's database file. For the default library that is
    /// `$XDG_DATA_HOME/feedctl/media/` (`~/.local/share/feedctl/media/`); a library elsewhere
    /// (`--db`, `FEEDCTL_DB`) gets the `media/` directory next to it, so libraries in different
    /// directories never see each other's files.
    /// A relative library path is taken from the current directory, so that printed paths
    /// say where the files really are.
    public init(libraryPath: String) {
        var parent = (libraryPath as NSString).deletingLastPathComponent
        if !parent.hasPrefix("/") {
            parent = (FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(parent)
        }
        directory = ((parent as NSString).appendingPathComponent("media") as NSString).standardizingPath
    }

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
            guard let (id, partial) = DownloadName.parse(name) else { continue }
            let full = path(name)
            var info = stat()
            // lstat: a symlink dropped into the directory is not a download.
            guard lstat(full, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            found.append(DownloadEntry(itemID: id, path: full, bytes: Int64(info.st_size), complete: !partial))
        }
        return found.sorted { ($0.itemID, $0.path) < ($1.itemID, $1.path) }
    }

    /// The files of item `id`.
    public func entries(item id: Int64) throws(DownloadError) -> [DownloadEntry] {
        try entries().filter { $0.itemID == id }
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
