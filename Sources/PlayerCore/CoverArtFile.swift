import Glibc

/// Writes the playing file's cover art where MPRIS clients can read it (`mpris:artUrl` is a URL;
/// desktops load `file://` ones). One cover at a time: writing one removes the one before, so
/// the directory never holds more than the current item's picture.
enum CoverArtFile {
    /// Covers larger than this are not written (a real one is tens to hundreds of kilobytes).
    static let maxBytes = 16 << 20

    /// Writes `art` into `directory` (made if missing; its parent must exist) as
    /// `cover-<hash>.<ext>`, and returns its `file://` URL; nil if it cannot be written (the item
    /// then simply has no cover). Written to a temporary name and renamed, so a reader never sees half.
    static func write(_ art: CoverArt, into directory: String) -> String? {
        guard !art.bytes.isEmpty, art.bytes.count <= maxBytes else { return nil }
        _ = mkdir(directory, 0o700)
        let name = "cover-\(hex(fnv1a(art.bytes))).\(art.fileExtension)"
        let path = directory + "/" + name
        if access(path, F_OK) != 0 {
            let temporary = path + ".part"
            let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            guard fd >= 0 else { return nil }
            let written = art.bytes.withUnsafeBytes { all -> Bool in
                var offset = 0
                while offset < all.count {
                    let n = Glibc.write(fd, all.baseAddress.map { $0 + offset }, all.count - offset)
                    if n < 0 && errno == EINTR { continue }
                    guard n > 0 else { return false }
                    offset += n
                }
                return true
            }
            close(fd)
            guard written, rename(temporary, path) == 0 else { unlink(temporary); return nil }
        }
        removeCovers(in: directory, except: name)
        return "file://" + percentEncoded(path)
    }

    private static func removeCovers(in directory: String, except keep: String) {
        guard let dir = opendir(directory) else { return }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasPrefix("cover-") && name != keep { names.append(name) }
        }
        for name in names { unlink(directory + "/" + name) }
    }

    /// FNV-1a, 64 bits: names the file by its content, so playing the same file again reuses it.
    private static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }

    private static func hex(_ value: UInt64) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: 16 - text.count) + text
    }

    /// A path as a URL's path: unreserved characters and `/` as they are, every other byte as %XX.
    static func percentEncoded(_ path: String) -> String {
        var out = ""
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                 UInt8(ascii: "~"), UInt8(ascii: "/"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let digits = Array("0123456789ABCDEF")
                out += "%" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 15)])
            }
        }
        return out
    }
}
