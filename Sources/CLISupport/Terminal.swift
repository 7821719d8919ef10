import Foundation

/// Lines for a terminal: as wide as it is, no wider. Piped output is never cut (a script gets
/// every column whole).
public enum Terminal {
    /// `text` with its control characters (C0, DEL, C1) shown as "�": a feed's title with
    /// `ESC ] … BEL`, `ESC [2J` or U+009B would otherwise drive the terminal it is printed on
    /// (retitle it, clear it, inject input). For text output only; JSON escapes them itself.
    public static func printable(_ text: String) -> String {
        var previous: UInt8 = 0
        let clean = text.utf8.allSatisfy { byte in
            defer { previous = byte }
            return byte >= 0x20 && byte != 0x7F && !(previous == 0xC2 && byte < 0xA0 && byte >= 0x80)
        }
        if clean { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            let v = scalar.value
            result.append(v < 0x20 || (0x7F...0x9F).contains(v) ? "\u{FFFD}" : scalar)
        }
        return String(result)
    }

    /// The terminal's width in columns when stdout is one, else nil.
    public static var width: Int? {
        guard stdoutIsTTY else { return nil }
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init).flatMap { $0 > 0 ? $0 : nil }
    }

    /// `line` cut to `width` display columns, ending in "…" when it was cut; as it is when
    /// `width` is nil.
    public static func fit(_ line: String, width: Int?) -> String {
        guard let width, width > 0, columns(line) > width else { return line }
        var kept = ""
        var used = 0
        for character in line {
            let w = columns(character)
            if used + w > width - 1 { break }
            kept.append(character)
            used += w
        }
        return kept + "…"
    }

    /// Display columns of `text`: East Asian wide and emoji characters take two, combining
    /// marks none (what wcwidth would say, without depending on the C locale).
    public static func columns(_ text: some StringProtocol) -> Int {
        text.reduce(0) { $0 + columns($1) }
    }

    static func columns(_ character: Character) -> Int {
        guard let first = character.unicodeScalars.first else { return 0 }
        if first.properties.isEmojiPresentation { return 2 }
        switch first.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format, .control: return 0
        default: break
        }
        switch first.value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
             0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x20000...0x3FFFD:
            return 2
        default:
            return 1
        }
    }
}
