import ArgumentParser
import CLISupport
import LibraryOpen

/// `feedctl db …`: the library as a whole.
struct DatabaseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "db",
        abstract: "The library as a whole: copy it between SQLite and PostgreSQL.",
        subcommands: [Copy.self])

    struct Copy: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Copy a whole library, users and sessions included, into a new one (SQLite or PostgreSQL, either way).",
            discussion: """
                Every table is copied with its ids, then checked: each table's row count and checksum in the copy must \
                match the source's (printed as a table), else nothing is written. The target must hold no library yet: \
                a file that does not exist (it is made), a library nothing was added to, or an empty PostgreSQL database \
                (create it first; it is migrated). The source is read as it was when the copy began, and may stay in use.
                """)
        @Option(help: ArgumentHelp("The library to copy: a SQLite file or a postgresql:// URL.", valueName: "path|url"))
        var from: String
        @Option(help: ArgumentHelp("Where the copy goes: a SQLite file that does not exist yet, or an empty PostgreSQL database's postgresql:// URL.", valueName: "path|url"))
        var to: String

        func run() async throws {
            try await runReporting {
                let source = try LibraryLocation(parsing: from, setting: "--from")
                let target = try LibraryLocation(parsing: to, setting: "--to")
                do {
                    let checks = try await LibraryCopy.copy(from: source, to: target, announce: printError)
                    printChecks(checks)
                    let rows = checks.reduce(0) { $0 + $1.source.rows }
                    print("copied \(Formats.count(rows, "row")) in \(Formats.count(checks.count, "table")) from \(source) to \(target):"
                          + " every table's count and checksum match")
                } catch {
                    if case .mismatch(let checks)? = error as? LibraryCopyError { printChecks(checks) }
                    throw error
                }
            }
        }

        /// One line per table: its rows and checksum (the first 16 of its 64 hex digits), and
        /// what the copy holds instead where it differs.
        private func printChecks(_ checks: [LibraryCopy.TableCheck]) {
            let width = max(5, checks.map(\.table.count).max() ?? 0)
            let rowsWidth = max(4, checks.map { String($0.source.rows).count }.max() ?? 0)
            print(Formats.pad("TABLE", width) + "  " + Formats.pad("ROWS", rowsWidth, right: true) + "  CHECKSUM")
            for check in checks {
                var line = Formats.pad(check.table, width) + "  " + Formats.pad(String(check.source.rows), rowsWidth, right: true)
                    + "  " + check.source.hex.prefix(16)
                if !check.matches {
                    line += "  DIFFERS: the copy has \(Formats.count(check.target.rows, "row")), checksum \(check.target.hex.prefix(16))"
                }
                print(line)
            }
        }
    }
}
