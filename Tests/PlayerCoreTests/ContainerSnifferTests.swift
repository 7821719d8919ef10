import CFFmpeg
import Foundation
import XCTest
@testable import PlayerCore

/// The sniffer on the first bytes of real files (ffmpeg-made, one per format) and on crafted
/// bytes for what it must not claim.
final class ContainerSnifferTests: XCTestCase {
    private var media: Fixtures { get throws { try Fixtures.shared.get() } }

    private func sniff(_ bytes: [UInt8]) -> ContainerSniffer.Verdict {
        bytes.withUnsafeBytes { ContainerSniffer.sniff($0) }
    }

    private func head(_ url: URL, _ count: Int = 4096) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: url).prefix(count))
    }

    func testEachFormatIsNamedFromItsFirstBytes() throws {
        let expected = ["mp3": "mp3", "m4a": "mov", "opus": "ogg", "ogg": "ogg", "flac": "flac", "wav": "wav",
                        "aac": "aac", "webm": "matroska"]
        for (name, url, _) in try media.formats where expected[name] != nil {
            let demuxer = try XCTUnwrap(expected[name])
            XCTAssertEqual(sniff(try head(url)), .format(demuxer), name)
            XCTAssertNotNil(av_find_input_format(demuxer), "\(demuxer) is a libavformat demuxer")
        }
    }

    func testAnID3TagLongerThanTheSampleSaysWhereToLook() throws {
        let data = try Data(contentsOf: try media.coverArtMP3)
        let verdict = sniff([UInt8](data.prefix(4096)))
        guard case .tagEndsAt(let end) = verdict else { return XCTFail("\(verdict)") }
        XCTAssertGreaterThan(end, 4096)
        XCTAssertEqual([UInt8](data.dropFirst(end).prefix(16)).withUnsafeBytes { ContainerSniffer.sniff(after: $0) },
                       .format("mp3"))
        // The whole tag in the sample: answered at once.
        XCTAssertEqual(sniff([UInt8](data.prefix(end + 4096))), .format("mp3"))
    }

    func testWhatItMustNotClaim() throws {
        XCTAssertEqual(sniff([]), .unknown)
        XCTAssertEqual(sniff(try head(try media.garbage)), .unknown)
        XCTAssertEqual(sniff(Array("<?xml version=\"1.0\"?><rss/>".utf8)), .unknown)
        // One valid MPEG audio header followed by junk: a raw stream needs two frames in a row.
        let mp3 = try head(try media.shortMP3)
        XCTAssertEqual(sniff(Array(mp3.prefix(4)) + Array(repeating: 0x00, count: 2000)), .unknown)
        // Reserved version, layer, bad bitrate or sample-rate index.
        for header: [UInt8] in [[0xFF, 0xEB, 0x90, 0x00], [0xFF, 0xF9, 0x90, 0x00], [0xFF, 0xFB, 0xF0, 0x00], [0xFF, 0xFB, 0x9C, 0x00]] {
            XCTAssertEqual(sniff(header + header + Array(repeating: 0, count: 2000)), .unknown, "\(header)")
        }
        // An ID3 header with a size that is not syncsafe is no tag.
        XCTAssertEqual(sniff(Array("ID3".utf8) + [3, 0, 0, 0x80, 0, 0, 0] + Array(repeating: 0, count: 100)), .unknown)
        // A truncated ftyp box or RIFF header.
        XCTAssertEqual(sniff([0, 0, 0, 0x18, 0x66, 0x74]), .unknown)
        XCTAssertEqual(sniff(Array("RIFF".utf8) + [0, 0, 0, 0] + Array("AVI ".utf8)), .unknown)
    }

    func testID3TagEnd() {
        // Size 0x0201 in syncsafe bytes (2 << 7 | 1 = 257), plus the 10-byte header; a footer adds 10.
        let header = Array("ID3".utf8) + [4, 0, 0, 0, 0, 2, 1]
        XCTAssertEqual(header.withUnsafeBytes { ContainerSniffer.id3TagEnd($0) }, 267)
        var withFooter = header
        withFooter[5] = 0x10
        XCTAssertEqual(withFooter.withUnsafeBytes { ContainerSniffer.id3TagEnd($0) }, 277)
    }
}
