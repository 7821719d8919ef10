import ArgumentParser
import CLISupport
import Foundation
import UserConfig

/// `feedctl config`: the defaults in `$XDG_CONFIG_HOME/feedctl/config.toml`, read by the daemon
/// when it starts.
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "The config file's settings (the daemon reads them when it starts; discover and serve, [discover]; serve, [oidc]).",
        subcommands: [List.self, Get.self, SetKey.self, Path.self])

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Every key: its value, default, unit and meaning.")
        @OptionGroup var output: OutputOptions

        func run() throws {
            try runReporting {
                let config = try Config.load(path: Config.defaultPath())
                let defaults = Config()
                if output.json {
                    let values = Dictionary(uniqueKeysWithValues: Config.settings.map { ($0.name, ConfigCommand.ListedValue($0, in: config)) })
                    return try printJSON(values)
                }
                let width = Config.settings.map { "\($0.name) = \(ConfigCommand.shown($0, in: config))".count }.max() ?? 0
                for setting in Config.settings {
                    let value = ConfigCommand.shown(setting, in: config)
                    let line = "\(setting.name) = \(value)"
                    let unit = setting.unit.map { " \($0)" } ?? ""
                    let changed = !setting.isSet(in: defaults) || value == setting.text(in: defaults) ? "" : " (default \(setting.text(in: defaults)))"
                    print(line.padding(toLength: width, withPad: " ", startingAt: 0) + "  # \(setting.help)\(unit.isEmpty ? "" : ";\(unit)")\(changed)")
                }
            }
        }
    }

    /// As `list` shows a value: unset keys as `(built-in)`, a secret as `(set)`.
    static func shown(_ setting: Setting, in config: Config) -> String {
        guard setting.isSet(in: config) else { return "(built-in)" }
        return setting.isSecret ? "(set)" : setting.text(in: config)
    }

    /// `list --json`: numbers as numbers, text as strings, flags as booleans, lists as arrays,
    /// unset as null, a secret as "(set)".
    enum ListedValue: Encodable {
        case number(JSONNumber), text(String), flag(Bool), list([String]), unset
        init(_ setting: Setting, in config: Config) {
            if !setting.isSet(in: config) { self = .unset }
            else if setting.isSecret { self = .text("(set)") }
            else if let values = setting.list(in: config) { self = .list(values) }
            else if setting.isFlag { self = .flag(setting.text(in: config) == "true") }
            else if setting.isText { self = .text(setting.value(in: config) ?? "") }
            else { self = .number(JSONNumber(text: setting.text(in: config))) }
        }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .number(let number): try container.encode(number)
            case .text(let text): try container.encode(text)
            case .flag(let flag): try container.encode(flag)
            case .list(let values): try container.encode(values)
            case .unset: try container.encodeNil()
            }
        }
    }

    struct Get: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print one key's value (the default when the file does not set it).")
        @Argument(help: "A key, e.g. player.seek_step.") var key: String

        func run() throws {
            try runReporting {
                // The value itself (a URL, not its TOML spelling); nothing for an unset key.
                let setting = try Config.setting(named: key)
                if let value = setting.value(in: try Config.load(path: Config.defaultPath())) { print(value) }
            }
        }
    }

    struct SetKey: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set", abstract: "Set one key in the config file; the rest of the file (comments too) stays as it is.")
        @Argument(help: "A key, e.g. player.seek_step.") var key: String
        @Argument(help: "Its value.") var value: String

        func run() throws {
            try runReporting {
                let path = Config.defaultPath()
                let setting = try Config.setting(named: key)
                let text: String
                if FileManager.default.fileExists(atPath: path) {
                    do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
                        throw CommandError("cannot read \(path): \(error.localizedDescription)")
                    }
                    _ = try Config.load(path: path)   // a broken file is named with its path, not edited
                } else {
                    text = ""
                }
                let edited = try ConfigEdit.set(setting, to: value, in: text)
                let directory = (path as NSString).deletingLastPathComponent
                do { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) } catch {
                    throw CommandError("cannot create \(directory): \(error.localizedDescription)")
                }
                // A file holding a secret is its owner's alone (0600); else it keeps its mode.
                let existing = (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int).flatMap { $0 }
                var mode = existing.map { mode_t($0) & 0o777 }
                let parsed = try Config.parse(edited)
                if parsed.holdsSecret { mode = (mode ?? 0o600) & 0o600 }
                try FileOutput.write(edited.utf8, to: path, mode: mode)
                let shown = setting.isSecret ? "(set)" : setting.text(in: parsed)
                let when = setting.name.hasPrefix("discover.") || setting.name.hasPrefix("oidc.")
                    ? "feedctl serve applies it when restarted" : "a running daemon applies it when restarted"
                print("\(setting.name) = \(shown) (in \(path); \(when))")
            }
        }
    }

    struct Path: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the config file's path ($FEEDCTL_CONFIG, else $XDG_CONFIG_HOME/feedctl/config.toml).")
        func run() throws { print(Config.defaultPath()) }
    }
}

/// A number written as the config spells it (15, 0.25), for `config list --json`.
struct JSONNumber: Encodable {
    let text: String
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let int = Int(text) { try container.encode(int) } else { try container.encode(Double(text) ?? 0) }
    }
}
