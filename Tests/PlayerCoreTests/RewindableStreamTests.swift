import CFFmpeg
import Foundation
import XCTest
@testable import PlayerCore

/// The rewind cache's own rule, byte by byte on a local file (the stream does not care where its
/// bytes come from): what a seek read past the limit is gone once the seek ends, so whether a
/// later seek back is served from memory or opens the URL again never depends on timing.
final class RewindableStreamTests: XCTestCase {
    private let limit = 64 << 10

    func testASeekMayReadPastTheLimitButNothingPastItIsKeptAfterwards() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rewind-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("bytes")
        try Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 / 7) }).write(to: file)

        let interrupt = AVIOInterruptCB(callback: nil, opaque: nil)
        let stream = RewindableStream(try RewindableStream.open(file.path, options: [], interrupt: interrupt),
                                      location: file.path, options: [], interrupt: interrupt, cacheLimit: limit)
        var buffer = [UInt8](repeating: 0, count: 4096)
        XCTAssertEqual(buffer.withUnsafeMutableBufferPointer { stream.read(into: $0.baseAddress!, size: 4096) }, 4096)

        // A seek from 4 KiB to 150 KiB: the pin keeps everything from 4 KiB (150 KiB < 3 × 64 KiB).
        stream.pin(4096)
        XCTAssertEqual(stream.seek(offset: 150 << 10, whence: SEEK_SET), 150 << 10)
        stream.unpin()

        // The file is gone: a seek back is possible only from memory, and only the last 64 KiB are.
        try FileManager.default.removeItem(at: file)
        XCTAssertEqual(stream.seek(offset: Int64((150 << 10) - limit), whence: SEEK_SET), Int64((150 << 10) - limit),
                       "the last \(limit) bytes are kept")
        XCTAssertLessThan(stream.seek(offset: 4096, whence: SEEK_SET), 0,
                          "bytes read during the seek beyond the limit were dropped when it ended")
        XCTAssertEqual(stream.seek(offset: 100 << 10, whence: SEEK_SET), 100 << 10, "a failed seek loses nothing")
        XCTAssertEqual(buffer.withUnsafeMutableBufferPointer { stream.read(into: $0.baseAddress!, size: 4096) }, 4096)
        XCTAssertEqual(buffer[0], UInt8(truncatingIfNeeded: (100 << 10) / 7))
    }
}
