import Foundation
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
        /// true or false.
        case flag(WritableKeyPath<Config, Bool> & Sendable)
        /// Text values, each checked by the rule (a TOML array; `config set` takes them comma-separated).
        case list(WritableKeyPath<Config, [String]> & Sendable, TextRule)
    }

    /// What a text key accepts.
    public enum TextRule: Sendable {
        case httpURL
        case anyText
        /// Shown as `(set)`, never its value.
        case secret
        /// An OpenID issuer: an https URL, or http to a loopback host (tests, development),
        /// without query or fragment (`iss` is compared with it exactly).
        case issuerURL
        /// OAuth scopes separated by spaces (RFC 6749 §3.3's characters), `openid` among them.
        case scopes
        /// Where a phone app is sent back to: an absolute URI (a custom scheme such as
        /// `viewvault://auth`, or https) without a fragment; never a script or a file.
        case redirectURI
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

    /// Whether the value is true or false (a boolean in `config list --json`).
    public var isFlag: Bool {
        if case .flag = field { return true }
        return false
    }

    /// The values of a list key (nil for any other).
    public func list(in config: Config) -> [String]? {
        if case .list(let path, _) = field { return config[keyPath: path] }
        return nil
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

    init(_ name: String, _ keyPath: WritableKeyPath<Config, Bool> & Sendable, help: String) {
        self.name = name; self.unit = nil; self.range = 0...0; self.field = .flag(keyPath); self.help = help
    }

    init(_ name: String, each rule: TextRule, _ keyPath: WritableKeyPath<Config, [String]> & Sendable, help: String) {
        self.name = name; self.unit = nil; self.range = 0...0; self.field = .list(keyPath, rule); self.help = help
    }

    /// Whether the file sets it (a key with a built-in default always is).
    public func isSet(in config: Config) -> Bool {
        switch field {
        case .number, .count, .flag, .list: return true
        case .optionalNumber(let path, _): return config[keyPath: path] != nil
        case .text(let path, _): return config[keyPath: path] != nil
        }
    }

    /// The value as the program uses it (`https://…`, `10`), nil when unset; `text(in:)` is the
    /// file's spelling.
    public func value(in config: Config) -> String? {
        switch field {
        case .number, .count, .flag: return text(in: config)
        case .optionalNumber(let path, _): return config[keyPath: path].map(Self.spell)
        case .text(let path, _): return config[keyPath: path]
        case .list(let path, _): return config[keyPath: path].joined(separator: ", ")
        }
    }

    /// The value in `config`, as the file would spell it (a TOML string for text); empty when unset.
    public func text(in config: Config) -> String {
        switch field {
        case .number(let path): return Self.spell(config[keyPath: path])
        case .count(let path): return String(config[keyPath: path])
        case .optionalNumber(let path, _): return config[keyPath: path].map(Self.spell) ?? ""
        case .text(let path, _): return config[keyPath: path].map(Self.quoted) ?? ""
        case .flag(let path): return config[keyPath: path] ? "true" : "false"
        case .list(let path, _): return "[" + config[keyPath: path].map(Self.quoted).joined(separator: ", ") + "]"
        }
    }

    /// Sets the value from what a person typed (`config set`).
    public func apply(text: String, to config: inout Config) throws(ConfigError) {
        switch field {
        case .text: return try apply(text: text, to: &config, shown: text)
        case .flag(let path):
            switch text.trimmingCharacters(in: .whitespaces) {
            case "true": config[keyPath: path] = true
            case "false": config[keyPath: path] = false
            default: throw invalid(text)
            }
            return
        case .list(let path, let rule):
            // Comma-separated; nothing (or only spaces) empties the list.
            let values = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            for value in values where !rule.accepts(value) { throw invalid(value) }
            config[keyPath: path] = values
            return
        case .number, .count, .optionalNumber: break
        }
        guard let number = Double(text.trimmingCharacters(in: .whitespaces)) else { throw invalid(text) }
        try apply(number, to: &config, shown: text)
    }

    func apply(_ value: any TOMLValueConvertible, to config: inout Config) throws(ConfigError) {
        switch field {
        case .text:
            guard let text = value.string else { throw invalid(String(describing: value)) }
            return try apply(text: text, to: &config, shown: String(describing: value))
        case .flag(let path):
            guard let flag = value.bool else { throw invalid(String(describing: value)) }
            config[keyPath: path] = flag
            return
        case .list(let path, let rule):
            guard let array = value.array else { throw invalid(String(describing: value)) }
            var values: [String] = []
            for element in array {
                guard let text = element.string?.trimmingCharacters(in: .whitespaces), rule.accepts(text) else {
                    throw invalid(String(describing: element))
                }
                values.append(text)
            }
            config[keyPath: path] = values
            return
        case .number, .count, .optionalNumber: break
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
        case .text, .flag, .list:
            throw invalid(shown)
        }
    }

    private func apply(text: String, to config: inout Config, shown: String) throws(ConfigError) {
        guard case .text(let path, let rule) = field else { throw invalid(shown) }
        let value = text.trimmingCharacters(in: .whitespaces)
        guard rule.accepts(value) else { throw invalid(rule == .secret ? "(the value given)" : shown) }
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
        case .text(_, .issuerURL):
            return ConfigError("\(name) must be the provider's https URL (http only to 127.0.0.1 or localhost), without ? or #, not \(shown)")
        case .text(_, .scopes):
            return ConfigError("\(name) must be scopes separated by spaces, openid among them (e.g. \"openid email profile\"), not \(shown)")
        case .text(_, .redirectURI), .list(_, .redirectURI):
            return ConfigError("\(name) takes absolute URIs without # (e.g. viewvault://auth), comma-separated; not \(shown)")
        case .text, .list: return ConfigError("\(name) must be one line of text, not \(shown)")
        case .flag: return ConfigError("\(name) must be true or false, not \(shown)")
        }
        let units = unit.map { " (\($0))" } ?? ""
        return ConfigError("\(name) must be \(kind) from \(Self.spell(range.lowerBound)) to \(Self.spell(range.upperBound))\(units), not \(shown)")
    }

    /// 15 rather than 15.0; 0.25 as it is.
    static func spell(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}

extension Setting.TextRule {
    /// Whether `value` (trimmed) is one this rule takes: the one check of each kind of key.
    func accepts(_ value: String) -> Bool {
        let oneLine = !value.isEmpty && !value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        switch self {
        case .anyText, .secret:
            return oneLine
        case .httpURL:
            let lower = value.lowercased()
            return (lower.hasPrefix("http://") || lower.hasPrefix("https://")) && value.count > 8 && !value.contains(where: \.isWhitespace)
        case .issuerURL:
            guard oneLine, !value.contains(where: \.isWhitespace), !value.contains("?"), !value.contains("#"),
                  let url = URL(string: value), let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(), !host.isEmpty
            else { return false }
            return scheme == "https" || (scheme == "http" && Self.loopbackHosts(host))
        case .scopes:
            let scopes = value.split(separator: " ")
            return scopes.contains("openid") && scopes.allSatisfy { scope in
                scope.unicodeScalars.allSatisfy { $0.value == 0x21 || (0x23...0x5B).contains($0.value) || (0x5D...0x7E).contains($0.value) }
            }
        case .redirectURI:
            // RFC 3986's scheme, then something; no spaces, no fragment (RFC 6749 §3.1.2).
            guard oneLine, !value.contains(where: \.isWhitespace), !value.contains("#"), let colon = value.firstIndex(of: ":"),
                  value.index(after: colon) < value.endIndex else { return false }
            let scheme = value[..<colon].lowercased()
            guard let first = scheme.unicodeScalars.first, ("a"..."z").contains(first),
                  scheme.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0) })
            else { return false }
            return !["javascript", "data", "vbscript", "file", "about", "blob"].contains(scheme)
        }
    }

    private static func loopbackHosts(_ host: String) -> Bool {
        host == "localhost" || host == "[::1]" || host == "::1" || host.hasPrefix("127.")
    }
}
