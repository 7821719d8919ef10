import Foundation

/// File names for downloaded episodes: `<item id>_<title>.<ext>`, safe whatever the feed says.
/// The id prefix is what finds an item's file again (titles change between syncs); the title is
/// only there for people browsing the directory.
///
/// The id is a key that cannot collide because the library never hands an id out twice (its
/// `v7-ids-never-reused` migration); the `_` after it says the file was named under that rule.
/// Files from before it are named `<id>-<title>.<ext>` (or `<id>.<ext>`), and their id may
/// since have gone to another item (a removed channel's episode then played in place of a new
/// one): such a *legacy* file is never taken for an item's download until `adoptable` vouches
/// for it, and is then renamed to the current form.
enum DownloadName {
    /// Longest title part, in UTF-8 bytes (file systems cap names at 255 bytes).
    static let maxTitleBytes = 80
    static let partSuffix = ".part"

    /// `12_Episode 4 - The Return.mp3`; `12_.mp3` when nothing of the title survives.
    static func make(id: Int64, title: String, enclosureURL: String, type: String?) -> String {
        "\(id)_\(sanitizedTitle(title)).\(fileExtension(url: enclosureURL, type: type))"
    }

    /// The current name for a legacy file's name: `12-Title.mp3` → `12_Title.mp3`, `12.mp3` → `12_.mp3`.
    static func current(forLegacy name: String, id: Int64) -> String {
        let rest = name.dropFirst(String(id).count)
        return rest.first == "-" ? "\(id)_" + rest.dropFirst() : "\(id)_" + rest
    }

    /// The title without control or bidi-override characters, `/` (nor other characters some
    /// file systems refuse) or leading dots, with
    /// whitespace collapsed, cut to `maxTitleBytes` on a character boundary (never inside a
    /// UTF-8 sequence or an emoji).
    static func sanitizedTitle(_ raw: String) -> String {
        var text = ""
        var lastWasSpace = true  // drops leading whitespace
        for scalar in raw.precomposedStringWithCanonicalMapping.unicodeScalars {
            if portabilityHazards.contains(scalar) {
                text.unicodeScalars.append("-")
                lastWasSpace = false
            } else if scalar.properties.isWhitespace || scalar.properties.generalCategory == .control {
                if !lastWasSpace { text.unicodeScalars.append(" ") }
                lastWasSpace = true
            } else if !isInvisibleFormat(scalar) {
                text.unicodeScalars.append(scalar)
                lastWasSpace = false
            }
        }
        var result = ""
        var bytes = 0
        for character in text {
            let size = character.utf8.count
            guard bytes + size <= maxTitleBytes else { break }
            result.append(character)
            bytes += size
        }
        // No leading dots (hidden files, `..`), no trailing dots or spaces before the extension.
        while result.first == "." || result.first == " " { result.removeFirst() }
        while result.last == "." || result.last == " " { result.removeLast() }
        return result
    }

    /// `/` (and, so that files copy to FAT/exFAT cards and Windows shares, `\ : * ? " < > |`)
    /// become `-`.
    private static let portabilityHazards: Set<Unicode.Scalar> = ["/", "\\", ":", "*", "?", "\"", "<", ">", "|"]

    /// Format characters that can disguise a name (right-to-left overrides, zero-width spaces,
    /// BOM); the zero-width joiner stays, as emoji sequences need it.
    private static func isInvisibleFormat(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .format && scalar != "\u{200D}"
    }

    /// The enclosure URL's extension when it looks like one (`mp3`, `m4a`), else one for the
    /// media type, else `bin`.
    static func fileExtension(url: String, type: String?) -> String {
        let path = URL(string: url)?.path ?? ""
        let last = path.split(separator: "/").last.map(String.init) ?? ""
        if let dot = last.lastIndex(of: "."), dot != last.startIndex {
            let ext = last[last.index(after: dot)...].lowercased()
            // `part` would make a complete file look like an unfinished one.
            if (1...5).contains(ext.count), ext != "part", ext.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) {
                return ext
            }
        }
        let mediaType = type?.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        return mediaType.flatMap { typeExtensions[$0] } ?? "bin"
    }

    private static let typeExtensions: [String: String] = [
        "audio/mpeg": "mp3", "audio/mp3": "mp3", "audio/mp4": "m4a", "audio/x-m4a": "m4a", "audio/m4a": "m4a",
        "audio/aac": "aac", "audio/ogg": "ogg", "audio/opus": "opus", "audio/flac": "flac", "audio/x-flac": "flac",
        "audio/wav": "wav", "audio/x-wav": "wav", "audio/webm": "webm", "video/mp4": "mp4", "video/x-m4v": "m4v",
        "video/webm": "webm", "video/quicktime": "mov",
    ]

    /// The item id a media file name starts with, whether it is a `.part`, and whether it is a
    /// legacy name (`<id>-…` or `<id>.…`, from before ids were never reused); nil for names
    /// that are not ours (hidden files, anything without an id prefix).
    static func parse(_ name: String) -> (id: Int64, partial: Bool, legacy: Bool)? {
        let digits = name.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, digits.count <= 18, let id = Int64(digits) else { return nil }
        let rest = name.dropFirst(digits.count)
        guard let mark = rest.first, mark == "_" || mark == "-" || mark == "." else { return nil }
        return (id, name.hasSuffix(partSuffix), mark != "_")
    }
}
