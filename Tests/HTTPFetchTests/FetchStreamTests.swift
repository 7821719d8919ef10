import Foundation
import TestSupport
import XCTest
@testable import HTTPFetch

/// `Fetcher.stream`: a body handed on as it arrives (the server's audio proxy), held back while
/// its reader is behind, every hop checked as any fetch's, stopped when the reader leaves.
final class FetchStreamTests: XCTestCase {
    private func request(_ url: String) -> FetchRequest {
        FetchRequest(url: url, maxBytes: Int.max, connectTimeout: 10, totalTimeout: .infinity, stallTimeout: 10)
    }

    /// A reader that stops reading holds at most its buffer (the transfer pauses), and once it
    /// reads on, the transfer resumes: every byte of the origin's 64 MB arrives.
    func testAStreamPausesForItsReaderAndResumes() async throws {
        let server = try TestHTTPServer()
        let stream = try await Fetcher().stream(request(server.url("/big?mb=64")), buffer: 64 * 1024)
        // A transfer that never resumed would leave this test waiting: it fails instead.
        let deadline = Task {
            try await Task.sleep(for: .seconds(60))
            stream.cancel()
        }
        defer { deadline.cancel() }
        XCTAssertEqual(stream.head.status, 200)
        XCTAssertEqual(stream.head.headers["content-length"], "64000000")
        var total = try await stream.next()?.count ?? 0
        try await Task.sleep(for: .seconds(1))
        XCTAssertLessThanOrEqual(stream.buffered, 64 * 1024 + 64 * 1024, "held no more than its buffer and one chunk")
        while let chunk = try await stream.next() {
            total += chunk.count
            XCTAssertTrue(chunk.allSatisfy { $0 == 0 })
        }
        XCTAssertEqual(total, 64_000_000)
    }

    /// The Range asked for reaches the origin, and its bytes come back as they are (no
    /// Accept-Encoding: ranges of the origin's own bytes).
    func testARangeIsAskedAndItsBytesComeBack() async throws {
        let server = try TestHTTPServer()
        let bytes = Data((0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try server.write("media.bin", bytes)
        var asked = request(server.url("/gzip/media.bin"))
        asked.headers["Range"] = "bytes=100-199"
        let stream = try await Fetcher().stream(asked)
        XCTAssertEqual(stream.head.status, 206)
        XCTAssertEqual(stream.head.headers["content-range"], "bytes 100-199/10000")
        var body: [UInt8] = []
        while let chunk = try await stream.next() { body += chunk }
        XCTAssertEqual(Data(body), bytes[100...199])
        XCTAssertEqual(try server.stats().log.last?.encoding, nil, "not compressed")
    }

    /// A redirect to an address the fetcher refuses is not followed: the stream fails before
    /// any connection to it, naming the address.
    func testARedirectToARefusedAddressIsNotFollowed() async throws {
        let origin = try TestHTTPServer(), refused = try TestHTTPServer()
        try refused.write("media.mp3", "not to be fetched")
        let port = refused.port
        let fetcher = Fetcher(addresses: AddressPolicy { _, candidate in candidate == port })
        do {
            _ = try await fetcher.stream(request(origin.url("/redirect/302?to=" + refused.url("/media.mp3"))))
            XCTFail("followed a redirect to a refused address")
        } catch {
            XCTAssertEqual(error.kind, .connection)
            XCTAssertTrue(error.reason.contains("refused: 127.0.0.1 is a local address"), error.description)
        }
        XCTAssertEqual(try origin.stats().hits["/redirect/302"], 1)
        XCTAssertEqual(try refused.stats().hits["/media.mp3"] ?? 0, 0)
    }

    func testAnErrorStatusIsAFailureNotABody() async throws {
        let server = try TestHTTPServer()
        do {
            _ = try await Fetcher().stream(request(server.url("/status/404")))
            XCTFail("streamed an error answer")
        } catch {
            XCTAssertEqual(error.kind, .http(status: 404))
        }
    }

    /// A reader that leaves stops the transfer: the origin's connection closes long before its end.
    func testCancellingAStreamStopsTheTransfer() async throws {
        let server = try TestHTTPServer()
        let stream = try await Fetcher().stream(request(server.url("/big?mb=1000")))
        _ = try await stream.next()
        stream.cancel()
        do {
            while try await stream.next() != nil {}
            XCTFail("read on after cancel")
        } catch {
            XCTAssertEqual(error.kind, .cancelled)
        }
        let deadline = Date().addingTimeInterval(20)
        var sent: [Int] = []
        while sent.isEmpty, Date() < deadline {
            sent = try server.stats().log.filter { $0.path == "/big" }.map(\.sent)
            if sent.isEmpty { try await Task.sleep(for: .milliseconds(100)) }
        }
        XCTAssertEqual(sent.count, 1, "the origin's transfer ended")
        XCTAssertLessThan(sent.first ?? .max, 100_000_000)
    }
}
