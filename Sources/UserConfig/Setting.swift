import TOMLKit

/// One key of the config file: its name (`section.key`), what it means, what it accepts.
public struct Setting: Sendable {
    public let name: String
    public let help: String
    public let unit: String?
    public let range: ClosedRange<Double>
    private let field: Field

    private enum Field: Sendable {
        case number(WritableKeyPath<Config, Double> & Sendable)
        case count(WritableKeyPath<Config, Int> & Sendable)
        /// Unset (nil) keeps a built-in value the config does not know (discovery's).
        case optionalNumber(WritableKeyPath<Config, Double?> & Sendable, whole: Bool)
        case text(WritableKeyPath<Config, String?> & Sendable, TextRule)
    }

    /// What a text key accepts.
    public enum TextRule: Sendable {
        case httpURL
        case anyText
        /// Shown as `(set)`, never its value.
        case secret
    }

    /// Whether the value is text (quoted in the file, a string in `config list --json`).
    public var isText: Bool {
        if case .text = field { return true }
        return false
    }

    /// Whether `config list` and `config get` hide the value.
    public var isSecret: Bool {
        if case .text(_, .secret) = field { return true }
        return false
    }

    init(_ name: String, unit: String? = nil, range: ClosedRange<Double>, _ keyPath: WritableKeyPath<Config, Double> & Sendable, help: String) {
        self.name = name; self.unit = unit; self.range = range; self.field = .number(keyPath); self.help = help
    }

    init(_ name: String, range: ClosedRange<Double>, _ keyPath: WritableKeyPath<Config, Int> & Sendable, help: String) {
        self.name = name; self.unit = nil; self.range = range; self.field = .count(keyPath); self.help = help
    }

    init(_ name: String, unit: String?, range: ClosedRange<Double>, whole: Bool = false,
         _ keyPath: WritableKeyPath<Config, Double?> & Sendable, help: String) {
        self.name = name; self.unit = unit; self.range = range; self.field = .optionalNumber(keyPath, whole: whole); self.help = help
    }

    init(_ name: String, _ rule: TextRule, _ keyPath: WritableKeyPath<Config, String?> & Sendable, help: String) {
        self.name = name; self.unit = nil; self.range = 0...0; self.field = .text(keyPath, rule); self.help = help
    }

    /// Whether the file sets it (a key with a built-in default always is).
    public func isSet(in config: Config) -> Bool {
        switch field {
        case .number, .count: return true
        case .optionalNumber(let path, _): return config[keyPath: path] != nil
        case .text(let path, _): return config[keyPath: path] != nil
        }
    }

    /// The value as the program uses it (`https://…`, `10`), nil when unset; `text(in:)` is the
    /// file's spelling.
    public func value(in config: Config) -> String? {
        switch field {
        case .number, .count: return text(in: config)
        case .optionalNumber(let path, _): return config[keyPath: path].map(Self.spell)
        case .text(let path, _): return config[keyPath: path]
        }
    }

    /// The value in `config`, as the file would spell it (a TOML string for text); empty when unset.
    public func text(in config: Config) -> String {
        switch field {
        case .number(let path): return Self.spell(config[keyPath: path])
        case .count(let path): return String(config[keyPath: path])
        case .optionalNumber(let path, _): return config[keyPath: path].map(Self.spell) ?? ""
        case .text(let path, _): return config[keyPath: path].map(Self.quoted) ?? ""
        }
    }

    /// Sets the value from what a person typed (`config set`).
    public func apply(text: String, to config: inout Config) throws(ConfigError) {
        if case .text = field { return try apply(text: text, to: &config, shown: text) }
        guard let number = Double(text.trimmingCharacters(in: .whitespaces)) else { throw invalid(text) }
        try apply(number, to: &config, shown: text)
    }

    func apply(_ value: any TOMLValueConvertible, to config: inout Config) throws(ConfigError) {
        if case .text = field {
            guard let text = value.string else { throw invalid(String(describing: value)) }
            return try apply(text: text, to: &config, shown: String(describing: value))
        }
        // TOML's integers and floats both stand for numbers here (`speed = 1` is fine).
        guard let number = value.double ?? value.int.map(Double.init) else { throw invalid(String(describing: value)) }
        try apply(number, to: &config, shown: String(describing: value))
    }

    private func apply(_ number: Double, to config: inout Config, shown: String) throws(ConfigError) {
        guard number.isFinite, range.contains(number) else { throw invalid(shown) }
        switch field {
        case .number(let path):
            config[keyPath: path] = number
        case .count(let path):
            guard number.rounded() == number else { throw invalid(shown) }
            config[keyPath: path] = Int(number)
        case .optionalNumber(let path, let whole):
            guard !whole || number.rounded() == number else { throw invalid(shown) }
            config[keyPath: path] = number
        case .text:
            throw invalid(shown)
        }
    }

    private func apply(text: String, to config: inout Config, shown: String) throws(ConfigError) {
        guard case .text(let path, let rule) = field else { throw invalid(shown) }
        let value = text.trimmingCharacters(in: .whitespaces)
        let ok: Bool
        switch rule {
        case .httpURL:
            let lower = value.lowercased()
            ok = (lower.hasPrefix("http://") || lower.hasPrefix("https://")) && value.count > 8 && !value.contains(where: \.isWhitespace)
        case .anyText, .secret:
            ok = !value.isEmpty && !value.contains(where: { $0.isNewline })
        }
        guard ok else { throw invalid(rule == .secret ? "(the value given)" : shown) }
        config[keyPath: path] = value
    }

    /// A TOML basic string.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    out += String(format: "\\u%04X", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    private func invalid(_ shown: String) -> ConfigError {
        let kind: String
        switch field {
        case .number, .optionalNumber(_, whole: false): kind = "a number"
        case .count, .optionalNumber(_, whole: true): kind = "a whole number"
        case .text(_, .httpURL): return ConfigError("\(name) must be an http(s) URL, not \(shown)")
        case .text: return ConfigError("\(name) must be one line of text, not \(shown)")
        }
        let units = unit.map { " (\($0))" } ?? ""
        return ConfigError("\(name) must be \(kind) from \(Self.spell(range.lowerBound)) to \(Self.spell(range.upperBound))\(units), not \(shown)")
    }

    /// 15 rather than 15.0; 0.25 as it is.
    static func spell(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
