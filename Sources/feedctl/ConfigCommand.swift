import ArgumentParser
import CLISupport
import Foundation
import UserConfig

/// `feedctl config`: the defaults in `$XDG_CONFIG_HOME/feedctl/config.toml`, read by the daemon
/// when it starts.
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "The config file's settings (the daemon reads them when it starts).",
        subcommands: [List.self, Get.self, SetKey.self, Path.self])

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Every key: its value, default, unit and meaning.")
        @OptionGroup var output: OutputOptions

        func run() throws {
            try runReporting {
                let config = try Config.load(path: Config.defaultPath())
                let defaults = Config()
                if output.json {
                    let values = Dictionary(uniqueKeysWithValues: Config.settings.map { ($0.name, JSONNumber(text: $0.text(in: config))) })
                    return try printJSON(values)
                }
                let width = Config.settings.map { "\($0.name) = \($0.text(in: config))".count }.max() ?? 0
                for setting in Config.settings {
                    let value = setting.text(in: config)
                    let line = "\(setting.name) = \(value)"
                    let unit = setting.unit.map { " \($0)" } ?? ""
                    let changed = value == setting.text(in: defaults) ? "" : " (default \(setting.text(in: defaults)))"
                    print(line.padding(toLength: width, withPad: " ", startingAt: 0) + "  # \(setting.help)\(unit.isEmpty ? "" : ";\(unit)")\(changed)")
                }
            }
        }
    }

    struct Get: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print one key's value (the default when the file does not set it).")
        @Argument(help: "A key, e.g. player.seek_step.") var key: String

        func run() throws {
            try runReporting {
                let setting = try Config.setting(named: key)
                print(setting.text(in: try Config.load(path: Config.defaultPath())))
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
                try FileOutput.write(edited.utf8, to: path)
                print("\(setting.name) = \(setting.text(in: try Config.parse(edited))) (in \(path); a running daemon applies it when restarted)")
            }
        }
    }

    struct Path: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the config file's path ($FEEDCTL_CONFIG, else $XDG_CONFIG_HOME/feedctl/config.toml).")
        func run() throws { print(Config.defaultPath()) }
    }
}

/// A number written as the config spells it (15, 0.25), for `config list --json`.
private struct JSONNumber: Encodable {
    let text: String
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let int = Int(text) { try container.encode(int) } else { try container.encode(Double(text) ?? 0) }
    }
}
