@testable import APIServer
import XCTest

/// `JSONSyntax`: RFC 8259's grammar, and the number a decoder refused.
final class JSONSyntaxTests: XCTestCase {
    func testValidAndMalformedBodies() {
        for valid in [#"{}"#, #"[]"#, #" {"a": [1, -2.5e+3, true, false, null, "x\"\u00e9"]} "#, "0", #""text""#, #"{"a":{"b":[{}]}}"#] {
            XCTAssertTrue(JSONSyntax.check(Array(valid.utf8)).valid, valid)
        }
        for malformed in ["", "{", #"{"a" 1}"#, "[1,]", "01", "1.", "-", ".5", "+1", "tru", #""\x""#, "{} {}", "[1 2]", "\"a\u{1}\"",
                          String(repeating: "[", count: 513) + String(repeating: "]", count: 513)] {
            XCTAssertFalse(JSONSyntax.check(Array(malformed.utf8)).valid, malformed)
        }
    }

    func testTheFirstNumberThatIsNoWholeNumberInRange() {
        XCTAssertNil(JSONSyntax.check(Array(#"{"a": 1, "b": [-9223372036854775808]}"#.utf8)).oddNumber)
        let odd = JSONSyntax.check(Array(#"{"a": 1, "b": [2, {"c": 1e400}], "d": 0.5}"#.utf8)).oddNumber
        XCTAssertEqual(odd?.path, "b[1].c")
        XCTAssertEqual(odd?.text, "1e400")
        XCTAssertEqual(JSONSyntax.check(Array("9223372036854775808".utf8)).oddNumber?.text, "9223372036854775808")
    }
}
