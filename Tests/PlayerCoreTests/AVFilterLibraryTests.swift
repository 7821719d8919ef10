import XCTest
@testable import PlayerCore

/// libavfilter is dlopen'ed on the first speed ≠ 1 (SpeedTests cover it loaded): without it, a
/// speed change fails with a message naming the library instead of the process failing to start.
final class AVFilterLibraryTests: XCTestCase {
    func testAMissingLibraryIsAOneLineError() {
        XCTAssertThrowsError(try AVFilterLibrary(soname: "libavfilter-feedctl-missing.so.8")) { error in
            XCTAssertEqual((error as? PlayerError)?.description,
                           "audio output failed: playing at a speed other than 1× needs libavfilter-feedctl-missing.so.8"
                           + " (Debian: libavfilter8): libavfilter-feedctl-missing.so.8: cannot open shared object file:"
                           + " No such file or directory")
        }
    }

    func testTheSystemLibraryHasEverythingTimeStretchCalls() throws {
        let lib = try AVFilterLibrary.shared()
        XCTAssertNotNil(lib.getByName("atempo"))
        XCTAssertNil(lib.getByName("no-such-filter"))
    }
}
