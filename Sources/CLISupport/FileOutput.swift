import Foundation

/// Writes a file the user named, all or nothing: a temp file beside it, then a rename, so an
/// existing file is never left half-written. Failures are one line with the C library's reason
/// (Foundation's errors print as a dump of NSError user info).
public enum FileOutput {
    public static func write(_ bytes: some Collection<UInt8>, to path: String) throws(CommandError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw CommandError("cannot write \(path): it is a directory")
        }
        let directory = (path as NSString).deletingLastPathComponent
        var template = Array(((directory.isEmpty ? "." : directory) + "/.feedctl-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw failure(path) }
        let temp = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var ok = true
        let data = Array(bytes)
        data.withUnsafeBytes { raw in
            var offset = 0
            while ok, offset < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n > 0 { offset += n } else if n < 0, errno == EINTR { continue } else { ok = false }
            }
        }
        let error = errno
        // The temp file is 0600 (mkstemp); the file gets what a new file normally would.
        let mask = umask(0); umask(mask)
        if ok { ok = fchmod(fd, 0o666 & ~mask) == 0 && fsync(fd) == 0 }
        close(fd)
        guard ok, rename(temp, path) == 0 else {
            let reason = ok ? errno : error
            unlink(temp)
            throw CommandError("cannot write \(path): \(String(cString: strerror(reason)))")
        }
    }

    private static func failure(_ path: String) -> CommandError {
        CommandError("cannot write \(path): \(String(cString: strerror(errno)))")
    }
}
