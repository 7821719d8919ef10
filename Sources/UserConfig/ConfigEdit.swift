/// `feedctl config set`: changes one line of the file and leaves the rest as the person wrote
/// it (comments, order, blank lines), as `git config` does; a TOML library's round trip would
/// drop the comments.
public enum ConfigEdit {
    /// The file's text with `setting` set to `value` (checked against the setting's range).
    public static func set(_ setting: Setting, to value: String, in text: String) throws(ConfigError) -> String {
        var config = try Config.parse(text)
        try setting.apply(text: value, to: &config)
        let parts = setting.name.split(separator: ".", maxSplits: 1).map(String.init)
        let section = parts[0], key = parts[1]
        let line = "\(key) = \(setting.text(in: config))"

        var lines = text.isEmpty ? [] : text.components(separatedBy: "\n")
        if lines.last == "" { lines.removeLast() }
        var current: String?
        var lastInSection: Int?
        var replaced = false
        for (index, original) in lines.enumerated() {
            let trimmed = original.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("["), let close = trimmed.firstIndex(of: "]") {
                current = trimmed[trimmed.index(after: trimmed.startIndex)..<close].trimmingCharacters(in: .whitespaces)
                if current == section { lastInSection = index }
                continue
            }
            guard current == section else { continue }
            if !trimmed.isEmpty { lastInSection = index }
            if let equals = trimmed.firstIndex(of: "="),
               trimmed[..<equals].trimmingCharacters(in: .whitespaces) == key {
                // A comment after the value stays (a `#` inside a quoted value is the value's).
                let comment = Self.commentStart(in: trimmed[equals...]).map { "  " + trimmed[$0...] } ?? ""
                let indent = original.prefix(while: { $0 == " " || $0 == "\t" })
                lines[index] = indent + line + comment
                replaced = true
            }
        }
        if !replaced {
            if let at = lastInSection {
                lines.insert(line, at: at + 1)
            } else {
                if let last = lines.last, !last.trimmingCharacters(in: .whitespaces).isEmpty { lines.append("") }
                lines += ["[\(section)]", line]
            }
        }
        let edited = lines.joined(separator: "\n") + "\n"
        // The edit is checked by reading it back: a file written in a shape this editor does not
        // follow (dotted keys, inline tables) is refused rather than broken.
        guard let reread = try? Config.parse(edited), reread == config else {
            throw ConfigError("cannot change \(setting.name) in this file without rewriting it; edit it by hand")
        }
        return edited
    }

    /// Where a line's comment starts: the first `#` outside a basic string.
    static func commentStart(in text: Substring) -> Substring.Index? {
        var quoted = false
        var escaped = false
        for index in text.indices {
            let character = text[index]
            if escaped { escaped = false; continue }
            if quoted && character == "\\" { escaped = true; continue }
            if character == "\"" { quoted.toggle(); continue }
            if character == "#" && !quoted { return index }
        }
        return nil
    }
}
