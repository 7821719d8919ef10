import FeedText
#if canImport(Glibc)
import Glibc
#endif

/// Where to save a download and whom to tell about its progress.
struct DownloadTarget: Sendable {
    let path: String
    /// Continue a partial file with a Range request instead of starting over.
    let resume: Bool
    let progress: (@Sendable (_ received: Int64, _ total: Int64?) -> Void)?
}

/// The file a download streams into. A 206 that continues exactly where the file ends is
/// appended; a 200 rewrites the file from the start; the bodies of redirects and errors never
/// touch it, so a failed attempt leaves the partial file ready for the next resume.
/// Loop thread only.
final class DownloadFile {
    let target: DownloadTarget
    /// The file's size when the download began: the offset a resume asks for.
    let existing: Int64
    private let fd: Int32
    /// Bytes in the file so far, when the current hop writes to it.
    private(set) var size: Int64
    private(set) var total: Int64?
    /// True once the current hop's status says its body belongs in the file.
    private(set) var writing = false
    private(set) var problem: String?

    /// Nil with `problem` set when the file cannot be opened.
    init?(_ target: DownloadTarget, problem: inout String?) {
        let fd = open(target.path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            problem = "cannot open \(target.path): \(String(cString: strerror(errno)))"
            return nil
        }
        var info = stat()
        let length = fstat(fd, &info) == 0 ? Int64(info.st_size) : 0
        self.target = target
        self.fd = fd
        self.existing = target.resume ? length : 0
        self.size = length
    }

    deinit { close(fd) }

    /// Decides, at the start of a hop's body, whether it goes into the file. False (with
    /// `problem`) aborts the transfer.
    func begin(status: Int, contentRange: String?, contentLength: Int64?) -> Bool {
        writing = false
        switch status {
        case 206:
            guard let range = contentRange.flatMap(Self.parseContentRange), range.start == existing else {
                problem = "the server resumed at another offset than \(existing) (\(contentRange ?? "no Content-Range"))"
                return false
            }
            size = existing
            total = range.total
        case 200:
            size = 0
            total = contentLength
        default:
            return true  // a redirect's or an error's body: not ours to keep
        }
        guard ftruncate(fd, off_t(size)) == 0, lseek(fd, off_t(size), SEEK_SET) >= 0 else {
            problem = "cannot write \(target.path): \(String(cString: strerror(errno)))"
            return false
        }
        writing = true
        return true
    }

    func write(_ data: UnsafeRawBufferPointer) -> Bool {
        var rest = data
        while !rest.isEmpty {
            let n = Glibc.write(fd, rest.baseAddress, rest.count)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                problem = "cannot write \(target.path): \(String(cString: strerror(errno)))"
                return false
            }
            rest = UnsafeRawBufferPointer(rebasing: rest[n...])
        }
        size += Int64(data.count)
        target.progress?(size, total)
        return true
    }

    /// `bytes 100-999/1000` → (100, 1000); an unknown total (`*`) is nil.
    static func parseContentRange(_ value: String) -> (start: Int64, total: Int64?)? {
        let v = value.trimmingWhitespace()
        guard v.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = v.dropFirst(6)
        guard let dash = spec.firstIndex(of: "-"), let slash = spec.firstIndex(of: "/"),
              let start = Int64(String(spec[..<dash]).trimmingWhitespace()) else { return nil }
        return (start, Int64(spec[spec.index(after: slash)...]))
    }
}
