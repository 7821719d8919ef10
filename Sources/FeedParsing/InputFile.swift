#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file read in chunks; errors name the file and the reason.
final class InputFile {
    let path: String
    private let fd: Int32
    /// Bytes, for regular files; nil for pipes and devices.
    let size: Int?

    init(path: String) throws(FeedError) {
        self.path = path
        // open("") fails with ENOENT, which would read "can't open : No such file or directory".
        guard !path.isEmpty else { throw .io("no file name given (an empty argument)") }
        fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .io("can't open \(path): \(String(cString: strerror(errno)))") }
        var st = stat()
        if fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG {
            size = Int(st.st_size)
        } else if (st.st_mode & S_IFMT) == S_IFDIR {
            close(fd)
            throw .io("can't read \(path): it is a directory")
        } else {
            size = nil
        }
    }

    deinit { close(fd) }

    /// Fills `buffer` as far as possible; returns the byte count (0 at the end).
    func read(into buffer: inout [UInt8]) throws(FeedError) -> Int {
        var total = 0
        let capacity = buffer.count
        while total < capacity {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + total, capacity - total) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .io("can't read \(path): \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            total += n
        }
        return total
    }

    func rewind() throws(FeedError) {
        guard lseek(fd, 0, SEEK_SET) == 0 else { throw .io("can't rewind \(path): \(String(cString: strerror(errno)))") }
    }

    /// Moves to `offset` bytes from the start (a regular file's).
    func seek(to offset: Int) throws(FeedError) {
        guard lseek(fd, off_t(offset), SEEK_SET) == off_t(offset) else {
            throw .io("can't seek in \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// The whole rest of the file, refusing more than `limit` bytes.
    func readAll(limit: Int) throws(FeedError) -> [UInt8] {
        var all: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = try read(into: &chunk)
            if n == 0 { return all }
            all.append(contentsOf: chunk[0..<n])
            if all.count > limit { throw .tooLarge(limit: limit) }
        }
    }
}
