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
    }

    init(_ name: String, unit: String? = nil, range: ClosedRange<Double>, _ keyPath: WritableKeyPath<Config, Double> & Sendable, help: String) {
        self.name = name; self.unit = unit; self.range = range; self.field = .number(keyPath); self.help = help
    }

    init(_ name: String, range: ClosedRange<Double>, _ keyPath: WritableKeyPath<Config, Int> & Sendable, help: String) {
        self.name = name; self.unit = nil; self.range = range; self.field = .count(keyPath); self.help = help
    }

    /// The value in `config`, as the file would spell it.
    public func text(in config: Config) -> String {
        switch field {
        case .number(let path): return Self.spell(config[keyPath: path])
        case .count(let path): return String(config[keyPath: path])
        }
    }

    /// Sets the value from what a person typed (`config set`).
    public func apply(text: String, to config: inout Config) throws(ConfigError) {
        guard let number = Double(text.trimmingCharacters(in: .whitespaces)) else { throw invalid(text) }
        try apply(number, to: &config, shown: text)
    }

    func apply(_ value: any TOMLValueConvertible, to config: inout Config) throws(ConfigError) {
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
        }
    }

    private func invalid(_ shown: String) -> ConfigError {
        let kind: String
        switch field {
        case .number: kind = "a number"
        case .count: kind = "a whole number"
        }
        let units = unit.map { " (\($0))" } ?? ""
        return ConfigError("\(name) must be \(kind) from \(Self.spell(range.lowerBound)) to \(Self.spell(range.upperBound))\(units), not \(shown)")
    }

    /// 15 rather than 15.0; 0.25 as it is.
    static func spell(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
