import Foundation
import TestSupport
import XCTest

/// The man pages as scripts/install.sh writes them: scripts/man-pages.py run on the built
/// programs, then formatted by groff (what `man` runs on Debian) and checked by `mandoc -Tlint`.
final class ManPageTests: XCTestCase {
    static let pages = ["feedctl", "feedctl-daemon", "feedctl-serve"]

    /// Each page's roff source and its text as `man` shows it, written into a temp dir.
    func writePages() throws -> [String: (roff: String, text: String)] {
        let out = try PackagePaths.temporaryDirectory(self)
        let bin = try DaemonTestCase.feedctlBinary().deletingLastPathComponent().path
        try ProcessRunner.run("python3", [PackagePaths.root.appendingPathComponent("scripts/man-pages.py").path, bin, out.path])
        var pages: [String: (roff: String, text: String)] = [:]
        for page in Self.pages {
            let path = out.appendingPathComponent("\(page).1").path
            // -ww: every warning; -P-cbou: plain text, as a pipe gets it.
            let groff = try ProcessRunner.capture("groff", ["-man", "-Tutf8", "-ww", "-P-cbou", path],
                                                  environment: ["PATH": "/usr/bin:/bin", "MANWIDTH": "80"])
            XCTAssertEqual(groff.status, 0, "\(page).1: groff failed: \(groff.stderr)")
            XCTAssertEqual(groff.stderr, "", "\(page).1: groff warns")
            let lint = try ProcessRunner.capture("mandoc", ["-Tlint", path])
            XCTAssertEqual(lint.stdout + lint.stderr, "", "\(page).1: mandoc -Tlint")
            pages[page] = (try String(contentsOfFile: path, encoding: .utf8), groff.stdout)
        }
        return pages
    }

    func testEachPageHasItsSectionsAndExamples() throws {
        for (page, rendered) in try writePages() {
            let headings = rendered.text.split(separator: "\n").filter { $0.first?.isUppercase == true }.map(String.init)
            for section in ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS", "ENVIRONMENT", "FILES",
                            "EXAMPLES", "SEE ALSO"] {
                XCTAssertTrue(headings.contains(section), "\(page)(1) has no \(section) section: \(headings)")
            }
            // Example command lines: indented lines of the EXAMPLES section that run a program.
            let examples = rendered.text.components(separatedBy: "\nEXAMPLES\n").last?
                .components(separatedBy: "\nSEE ALSO\n").first?
                .split(separator: "\n")
                .filter { $0.hasPrefix("           ") && ($0.contains("feedctl") || $0.contains("curl") || $0.contains("playerctl")) } ?? []
            XCTAssertGreaterThanOrEqual(examples.count, page == "feedctl" ? 12 : 4, "\(page)(1)'s examples: \(examples)")
        }
    }

    /// -h/--help and --version are described once, at the top, not under each of the 60-odd
    /// commands (as ArgumentParser's generate-manual did), and no synopsis lists them.
    func testHelpAndVersionAreSaidOnce() throws {
        for (page, rendered) in try writePages() {
            let lines = rendered.text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            XCTAssertEqual(lines.filter { $0 == "-h, --help" }.count, 1, "\(page)(1) describes --help more than once")
            XCTAssertEqual(lines.filter { $0 == "--version" }.count, 1, "\(page)(1) describes --version more than once")
            XCTAssertFalse(rendered.text.contains("[--help]") || rendered.text.contains("[--version]"),
                           "\(page)(1) has a synopsis with --help or --version")
        }
    }

    /// Every command is there, grouped under its noun, with its own options; the options nearly
    /// every command takes are described once (under OPTIONS), not under each command.
    func testCommandsAreListedWithTheirOptions() throws {
        let feedctl = try XCTUnwrap(try writePages()["feedctl"])
        // A synopsis may wrap: compared word by word.
        let words = feedctl.text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for synopsis in ["feedctl channel add [--db path|url] [--json] [--shorts] urls ...",
                         "feedctl queue move [--db path|url] [--media-dir dir] [--socket path] [--json] from to",
                         "feedctl download [get] [--db path|url] [--media-dir dir]", "feedctl user passwd [--db path|url] [--password-stdin] name",
                         "feedctl daemon [options ...]"] {
            XCTAssertTrue(words.contains(synopsis), "no \(synopsis)")
        }
        XCTAssertTrue(feedctl.text.contains("Its options: feedctl-daemon(1)."))
        let lines = feedctl.text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        XCTAssertEqual(lines.filter { $0.hasPrefix("--db path") }.count, 1, "--db is described under each command")
        XCTAssertEqual(lines.filter { $0.hasPrefix("--media-dir dir") }.count, 1, "--media-dir is described under each command")
        XCTAssertTrue(lines.contains("--shorts"), "a command's own option is described")
        XCTAssertFalse(feedctl.text.contains("help [subcommands"), "ArgumentParser's help command is listed")
        // The exit status table is docs/cli.md's.
        XCTAssertTrue(feedctl.text.contains("partly failed: some of the work was done"))
    }
}
