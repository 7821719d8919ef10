import FeedModel
import Foundation
import TestSupport
import XCTest

/// API answers are gzipped for a client that asks (a browser) when the body is worth it, and sent
/// as they are to one that does not (wrk, curl): both the feed page's own writer (`FastJSON`) and
/// every `Encodable` answer, through one helper (`Gzip`).
final class JSONCompressionTests: XCTestCase {
    func gunzip(_ body: Data) throws -> String {
        let dir = TempDir()
        try body.write(to: URL(fileURLWithPath: dir.file("body.gz")))
        let out = try ProcessRunner.capture("/bin/gzip", ["-dc", dir.file("body.gz")])
        XCTAssertEqual(out.status, 0, out.stderr)
        return out.stdout
    }

    func parsed(_ body: Data) throws -> NSDictionary {
        try XCTUnwrap(JSONSerialization.jsonObject(with: body) as? NSDictionary)
    }

    func testJSONAnswersAreGzippedOnlyForAClientThatAsks() async throws {
        let h = try await APIHarness()
        let store = h.owner
        for n in 0..<40 {
            let channel = try await store.addTestChannel("Channel number \(n)")
            _ = try await store.ingest(items: [item("c\(n)-1", published: 1000 + Int64(n), duration: 600, title: "Episode \(n) of a long series")],
                                       channelID: channel, now: 1000)
        }
        // The feed page (FastJSON) and the subscriptions (JSONEncoder), each over the threshold.
        for path in ["/api/feed?per_page=40", "/api/subscriptions"] {
            let plain = try await h.curl("GET", path)
            XCTAssertEqual(plain.status, 200, plain.text)
            XCTAssertNil(plain.headers["content-encoding"], "\(path): not asked for gzip")
            XCTAssertEqual(plain.headers["vary"], "Accept-Encoding", path)
            XCTAssertEqual(plain.headers["content-length"], String(plain.body.count), path)
            XCTAssertGreaterThan(plain.body.count, 2048, path)

            let zipped = try await h.curl("GET", path, headers: ["Accept-Encoding": "gzip, deflate, br"])
            XCTAssertEqual(zipped.status, 200, path)
            XCTAssertEqual(zipped.headers["content-encoding"], "gzip", path)
            XCTAssertEqual(zipped.headers["vary"], "Accept-Encoding", path)
            XCTAssertEqual(zipped.headers["content-type"], "application/json; charset=utf-8", path)
            XCTAssertEqual(zipped.headers["content-length"], String(zipped.body.count), path)
            XCTAssertLessThan(zipped.body.count, plain.body.count / 3, path)
            // The same JSON (JSONEncoder's key order differs from one answer to the next).
            XCTAssertEqual(try parsed(Data(gunzip(zipped.body).utf8)), try parsed(plain.body), path)

            let refused = try await h.curl("GET", path, headers: ["Accept-Encoding": "gzip;q=0, identity"])
            XCTAssertNil(refused.headers["content-encoding"], path)
            XCTAssertEqual(try parsed(refused.body), try parsed(plain.body), path)
        }
        // A small answer goes as it is, whatever the client takes.
        let small = try await h.curl("GET", "/api/feed?per_page=1", headers: ["Accept-Encoding": "gzip"])
        XCTAssertLessThan(small.body.count, 1024)
        XCTAssertNil(small.headers["content-encoding"])
        XCTAssertEqual(try small.object()["total"] as? Int, 40)
    }
}
