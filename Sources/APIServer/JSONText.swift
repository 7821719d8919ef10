/// A small JSON writer for the few answers built by hand (errors, where a Codable round trip
/// could itself fail).
enum JSONText {
    indirect enum Value { case string(String), int(Int), bool(Bool), null }

    static func object(_ fields: KeyValuePairs<String, Value>) -> String {
        "{" + fields.map { "\(quote($0.key)): \(write($0.value))" }.joined(separator: ", ") + "}"
    }

    private static func write(_ value: Value) -> String {
        switch value {
        case .string(let s): return quote(s)
        case .int(let n): return String(n)
        case .bool(let b): return b ? "true" : "false"
        case .null: return "null"
        }
    }

    static func quote(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let c where c.value < 0x20:
                let hex = String(c.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
