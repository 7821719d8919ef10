/// Tells what a document is from its first bytes, before any parser sees it.
package enum DocumentSniffer {
    enum Kind: Equatable {
        case xml, html
        /// Not a feed; the payload says what it is ("a PNG image").
        case other(String)
    }

    static func sniff(_ head: ArraySlice<UInt8>) -> Kind {
        let b = Array(head.prefix(1024))
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            b.count >= offset + magic.count && Array(b[offset..<(offset + magic.count)]) == magic
        }
        // UTF-16, with or without a byte-order mark: only XML feeds come that way.
        if starts([0xFF, 0xFE]) || starts([0xFE, 0xFF]) || starts([0x3C, 0x00]) || starts([0x00, 0x3C]) { return .xml }
        if starts([0x89, 0x50, 0x4E, 0x47]) { return .other("a PNG image") }
        if starts([0xFF, 0xD8, 0xFF]) { return .other("a JPEG image") }
        if starts(Array("GIF8".utf8)) { return .other("a GIF image") }
        if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) { return .other("a WebP image") }
        if starts(Array("%PDF".utf8)) { return .other("a PDF document") }
        if starts([0x50, 0x4B, 0x03, 0x04]) { return .other("a ZIP archive") }
        if starts([0x1F, 0x8B]) { return .other("gzip-compressed data") }
        if starts(Array("ID3".utf8)) || (b.count >= 2 && b[0] == 0xFF && b[1] & 0xE0 == 0xE0) { return .other("an MP3 audio file") }
        if starts(Array("OggS".utf8)) { return .other("an Ogg media file") }
        if starts(Array("fLaC".utf8)) { return .other("a FLAC audio file") }
        if starts(Array("ftyp".utf8), at: 4) { return .other("an MP4/M4A media file") }

        var i = starts([0xEF, 0xBB, 0xBF]) ? 3 : 0
        while i < b.count, b[i] == 0x20 || b[i] == 0x09 || b[i] == 0x0A || b[i] == 0x0D { i += 1 }
        guard i < b.count else { return .other("a blank document") }
        switch b[i] {
        case UInt8(ascii: "{"), UInt8(ascii: "["): return .other("a JSON document")
        case UInt8(ascii: "<"):
            let lower = String(decoding: b[i...].prefix(64), as: UTF8.self).lowercased()
            if lower.hasPrefix("<!doctype html") || lower.hasPrefix("<html") || lower.hasPrefix("<head")
                || lower.hasPrefix("<body") { return .html }
            return .xml
        default:
            let binary = b.contains(where: isControlByte)
            return .other(binary ? "binary data" : "a plain-text document")
        }
    }

    /// Whether a fetched body is an HTML page (the start of it says so).
    package static func isHTML(_ bytes: [UInt8]) -> Bool { sniff(bytes[...]) == .html }

    /// An `<html` tag near the start: HTML that does not begin like HTML (a comment, a stray
    /// `<meta>` first) and so reached the XML parser.
    static func mentionsHTML(_ head: ArraySlice<UInt8>) -> Bool {
        let lower = String(decoding: head.prefix(2048), as: UTF8.self).lowercased()
        return lower.contains("<html") || lower.contains("<!doctype html")
    }
}

/// NUL or a C0 control other than tab, LF and CR: the mark of a binary file.
private func isControlByte(_ c: UInt8) -> Bool {
    if c == 0x09 || c == 0x0A || c == 0x0D { return false }
    return c < 0x20
}
