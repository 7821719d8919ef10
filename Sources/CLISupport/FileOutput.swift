import Foundation

/// Writes a file the user named, all or nothing: a temp file beside it, then a rename, so an
/// existing file is never left half-written. Failures are one line with the C library's reason
/// (Foundation's errors print as a dump of NSError user info).
public enum FileOutput {
    /// `mode`: the file's permission bits (nil: what a new file normally gets).
    public static func write(_ bytes: some Collection<UInt8>, to path: String, mode: mode_t? = nil) throws(CommandError) {
        let file = try FileStream(path: path, mode: mode)
        try file.write(bytes)
        try file.commit()
    }
}

/// A file written as it is made (a document too big to hold whole), all or nothing as
/// `FileOutput.write`: into a temp file beside it, renamed into place by `commit()`; let go of
/// without `commit()` (a failure on the way), the temp file is removed and `path` is untouched.
public final class FileStream {
    public let path: String
    private let temp: String
    private var fd: Int32
    private let mode: mode_t?
    private var committed = false

    /// `mode`: the file's permission bits (nil: what a new file normally gets).
    public init(path: String, mode: mode_t? = nil) throws(CommandError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw CommandError("cannot write \(path): it is a directory")
        }
        let directory = (path as NSString).deletingLastPathComponent
        var template = Array(((directory.isEmpty ? "." : directory) + "/.feedctl-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw CommandError("cannot write \(path): \(String(cString: strerror(errno)))") }
        self.path = path
        self.fd = fd
        self.mode = mode
        temp = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public func write(_ bytes: some Collection<UInt8>) throws(CommandError) {
        let data = Array(bytes)
        var failure: Int32 = 0
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n > 0 { offset += n } else if n < 0, errno == EINTR { continue } else { failure = n < 0 ? errno : EIO; return }
            }
        }
        if failure != 0 { throw CommandError("cannot write \(path): \(String(cString: strerror(failure)))") }
    }

    /// Puts the file in place, whole.
    public func commit() throws(CommandError) {
        // The temp file is 0600 (mkstemp); the file gets `mode`, else what a new file normally would.
        let mask = umask(0); umask(mask)
        let ok = fchmod(fd, mode ?? (0o666 & ~mask)) == 0 && fsync(fd) == 0
        let reason = errno
        close(fd)
        fd = -1
        guard ok, rename(temp, path) == 0 else {
            let why = ok ? errno : reason
            unlink(temp)
            throw CommandError("cannot write \(path): \(String(cString: strerror(why)))")
        }
        committed = true
    }

    deinit {
        if fd >= 0 { close(fd) }
        if !committed { unlink(temp) }
    }
}
