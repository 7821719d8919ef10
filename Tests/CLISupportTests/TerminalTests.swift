import CLISupport
import XCTest

final class TerminalTests: XCTestCase {
    func testFitCutsToTheWidthInDisplayColumns() {
        XCTAssertEqual(Terminal.fit("short", width: 10), "short")
        XCTAssertEqual(Terminal.fit("exactly ten", width: 11), "exactly ten")
        XCTAssertEqual(Terminal.fit("a longer line", width: 8), "a longe…")
        XCTAssertEqual(Terminal.fit("anything", width: nil), "anything", "piped: never cut")
        // Wide characters take two columns; a combining accent none.
        XCTAssertEqual(Terminal.columns("日本語"), 6)
        XCTAssertEqual(Terminal.columns("e\u{301}te\u{301}"), 3)
        XCTAssertEqual(Terminal.fit("日本語のタイトル", width: 7), "日本語…")
        XCTAssertEqual(Terminal.columns(Terminal.fit("🎧🎧🎧🎧", width: 6)), 5)
    }

    func testControlCharactersNeverReachTheTerminal() {
        XCTAssertEqual(Terminal.printable("plain — tïtle"), "plain — tïtle")
        XCTAssertEqual(Terminal.printable("a\u{1B}]0;owned\u{07}b"), "a\u{FFFD}]0;owned\u{FFFD}b")
        XCTAssertEqual(Terminal.printable("\u{1B}[2Jclear"), "\u{FFFD}[2Jclear")
        XCTAssertEqual(Terminal.printable("c1\u{9B}31m"), "c1\u{FFFD}31m")
        XCTAssertEqual(Terminal.printable("del\u{7F}"), "del\u{FFFD}")
        XCTAssertEqual(Terminal.printable("\u{A0}nbsp stays"), "\u{A0}nbsp stays")
    }
}
