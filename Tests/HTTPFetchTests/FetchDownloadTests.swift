import Foundation
import Synchronization
import TestSupport
import XCTest
@testable import HTTPFetch

/// `Fetcher.download`: streaming into a file, resuming with Range, never writing error bodies.
final class FetchDownloadTests: XCTestCase {
    private var server: TestHTTPServer!
    private var directory: URL!
    private let fetcher = Fetcher()
    /// 300 kB that are not all the same byte, so a misplaced range shows.
    private let media: [UInt8] = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }

    override func setUpWithError() throws {
        server = try TestHTTPServer()
        try Data(media).write(to: server.root.appendingPathComponent("episode.bin"))
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("feedctl-dl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        server.stop()
        try FileManager.default.removeItem(at: directory)
    }

    private func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    private func contents(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }

    private func downloadError(_ request: FetchRequest, to path: String) async throws -> FetchError {
        do {
            let response = try await fetcher.download(request, to: path)
            throw TestHTTPServer.Failure(description: "expected an error, got HTTP \(response.status)")
        } catch let error as FetchError {
            return error
        }
    }

    func testDownloadsIntoAFileWithProgress() async throws {
        let target = path("episode.bin")
        let seen = Mutex<[(Int64, Int64?)]>([])
        let response = try await fetcher.download(FetchRequest(url: server.url("/episode.bin"), maxBytes: 50_000_000), to: target) { received, total in
            seen.withLock { $0.append((received, total)) }
        }
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.body, [])
        XCTAssertEqual(try contents(target), media)
        let progress = seen.withLock { $0 }
        XCTAssertEqual(progress.last?.0, Int64(media.count))
        XCTAssertEqual(progress.last?.1, Int64(media.count))
        XCTAssertEqual(progress.map(\.0), progress.map(\.0).sorted())  // only grows
    }

    func testResumesAPartialFile() async throws {
        let target = path("episode.bin")
        try Data(media[..<1000]).write(to: URL(fileURLWithPath: target))
        let response = try await fetcher.download(FetchRequest(url: server.url("/count/episode.bin"), maxBytes: 50_000_000), to: target)
        XCTAssertEqual(response.status, 206)
        XCTAssertEqual(try contents(target), media)
        let entry = try XCTUnwrap(server.stats().log.first { $0.path == "/count/episode.bin" })
        XCTAssertEqual(entry.status, 206)
        XCTAssertEqual(entry.sent, media.count - 1000)  // only the missing part crossed the wire
    }

    func testCompleteFileIsA416Response() async throws {
        let target = path("episode.bin")
        try Data(media).write(to: URL(fileURLWithPath: target))
        let response = try await fetcher.download(FetchRequest(url: server.url("/episode.bin"), maxBytes: 50_000_000), to: target)
        XCTAssertEqual(response.status, 416)
        XCTAssertEqual(try contents(target), media)
    }

    func testWithoutResumeRewritesTheFile() async throws {
        let target = path("episode.bin")
        try Data(repeating: 7, count: 400_000).write(to: URL(fileURLWithPath: target))
        let response = try await fetcher.download(FetchRequest(url: server.url("/episode.bin"), maxBytes: 50_000_000), to: target, resume: false)
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(try contents(target), media)  // shorter than before: truncated, not overlaid
    }

    func testServerIgnoringRangeRewritesTheFile() async throws {
        let target = path("episode.bin")
        try Data(repeating: 7, count: 500).write(to: URL(fileURLWithPath: target))
        // The gzip route sends the whole (compressed) body with 200, ignoring Range.
        let response = try await fetcher.download(FetchRequest(url: server.url("/gzip/episode.bin"), maxBytes: 50_000_000), to: target)
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(try contents(target), media)
    }

    func testRedirectBodyIsNotWritten() async throws {
        let target = path("episode.bin")
        let response = try await fetcher.download(FetchRequest(url: server.url("/redirect/302?to=/episode.bin"), maxBytes: 50_000_000), to: target)
        XCTAssertEqual(response.redirects, 1)
        XCTAssertEqual(try contents(target), media)
    }

    func testErrorLeavesThePartialFile() async throws {
        let target = path("episode.bin")
        try Data(media[..<1000]).write(to: URL(fileURLWithPath: target))
        let url = server.url("/missing.bin")
        let error = try await downloadError(FetchRequest(url: url, maxBytes: 50_000_000), to: target)
        XCTAssertEqual(error.kind, .http(status: 404))
        XCTAssertEqual(try contents(target), Array(media[..<1000]))
    }

    func testSizeCapAppliesToTheFile() async throws {
        let url = server.url("/episode.bin")
        let error = try await downloadError(FetchRequest(url: url, maxBytes: 100_000), to: path("episode.bin"))
        XCTAssertEqual(error.kind, .tooLarge)
        XCTAssertEqual(error.description, "\(url): response larger than 100000 bytes")
    }

    func testUnwritablePath() async throws {
        let url = server.url("/episode.bin")
        let target = path("no/such/dir/episode.bin")
        let error = try await downloadError(FetchRequest(url: url, maxBytes: 50_000_000), to: target)
        XCTAssertEqual(error.kind, .fileSystem)
        XCTAssertEqual(error.description, "\(url): cannot open \(target): No such file or directory")
    }

    func testContentRangeParsing() {
        XCTAssertEqual(DownloadFile.parseContentRange("bytes 100-999/1000")?.start, 100)
        XCTAssertEqual(DownloadFile.parseContentRange("bytes 100-999/1000")?.total, 1000)
        XCTAssertNil(DownloadFile.parseContentRange("bytes 100-999/*")?.total)
        XCTAssertNil(DownloadFile.parseContentRange("bytes */1000"))
        XCTAssertNil(DownloadFile.parseContentRange("items 1-2/3"))
    }
}
