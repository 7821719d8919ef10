import Foundation
import TestSupport

/// The Rumble pages under `fixtures/`.
enum RumbleTestSupport {
    static func fixture(_ relativePath: String) throws -> [UInt8] {
        Array(try Data(contentsOf: PackagePaths.fixture(relativePath)))
    }
}
