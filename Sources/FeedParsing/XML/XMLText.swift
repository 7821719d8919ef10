/// Text written into XML or HTML (an OPML export, the server's home page).
public enum XMLText {
    /// `s` escaped for a text node or a double-quoted attribute value; characters XML 1.0 cannot carry at
    /// all are dropped.
    public static func escaped(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for scalar in s.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "\n": out += "&#10;"
            case "\r": out += "&#13;"
            case "\t": out += "&#9;"
            default:
                let v = scalar.value
                if v >= 0x20 && v != 0xFFFE && v != 0xFFFF { out.unicodeScalars.append(scalar) }
            }
        }
        return out
    }
}
