import XCTest
@testable import FeedIngest

/// The body hash that lets a sync skip an unchanged 200: stable for equal bodies, different
/// for any one changed byte, whatever its place in a word or the tail.
final class SyncBodyHashTests: XCTestCase {
    func testEveryOneByteChangeChangesTheHash() async {
        let body = Array("<rss><channel><title>Tiny</title></channel></rss>".utf8)  // 6 words + 1 byte
        let hash = BodyHash.of(body)
        XCTAssertEqual(BodyHash.of(Array(body)), hash)
        var seen: Set<String> = [hash]
        for index in body.indices {
            for flip: UInt8 in [0x01, 0x80] {
                var changed = body
                changed[index] ^= flip
                seen.insert(BodyHash.of(changed))
            }
        }
        XCTAssertEqual(seen.count, 1 + body.count * 2)
        XCTAssertNotEqual(BodyHash.of(body + [0]), hash, "a longer body differs")
        XCTAssertEqual(BodyHash.of([]), BodyHash.of([]))
        XCTAssertTrue(hash.hasSuffix("-\(body.count)"))
    }
}
