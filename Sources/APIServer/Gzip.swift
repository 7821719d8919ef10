import CZlib
import Hummingbird
import NIOCore

/// Compression of answers, one helper for both kinds: the web app's files (gzipped once, at
/// start, as small as zlib makes them) and JSON answers (gzipped per request at zlib's fastest
/// level, only for a client that asks and only when the body is worth it: a feed page of 50 items
/// is ~34 KB of JSON, 3.7 KB at level 1 in ~0.05 ms, 3.4 KB at level 4 in four times that). A
/// client that does not ask (wrk, curl) pays one header lookup.
enum Gzip {
    /// How hard zlib works: the web app's files once, at start; API answers per request.
    enum Level: Int32 { case once = 9, perRequest = 1 }

    /// JSON shorter than this goes as it is (the header and the work would cost more than they save).
    static let worthIt = 1024

    /// `bytes` as one gzip member, or nil when that is no smaller by a tenth (a picture) or zlib fails.
    static func compress(_ bytes: UnsafeRawBufferPointer, level: Level) -> [UInt8]? {
        guard bytes.count > 256, let input = bytes.baseAddress else { return nil }
        var written = 0
        let out = [UInt8](unsafeUninitializedCapacity: bytes.count + bytes.count / 1000 + 1024) { buffer, count in
            let status = feedctl_gzip(input.assumingMemoryBound(to: UInt8.self), bytes.count, buffer.baseAddress, buffer.count,
                                      &written, level.rawValue)
            count = status == 0 ? written : 0
        }
        guard !out.isEmpty, out.count < bytes.count * 9 / 10 else { return nil }
        return out
    }

    static func compress(_ bytes: [UInt8], level: Level) -> [UInt8]? {
        bytes.withUnsafeBytes { compress($0, level: level) }
    }

    /// `Accept-Encoding` names gzip, not refused with `q=0`.
    static func accepted(by request: Request) -> Bool {
        request.headers[values: .acceptEncoding].flatMap { $0.split(separator: ",") }.contains { coding in
            let parts = coding.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard parts.first == "gzip" || parts.first == "x-gzip" else { return false }
            let quality = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) }
            return quality.map { $0 > 0 } ?? true
        }
    }

    /// A 200 JSON answer with `json`, gzipped when `request` takes it and it is worth it
    /// (`Vary: Accept-Encoding` on every answer that could have been).
    static func jsonResponse(_ json: UnsafeRawBufferPointer, for request: Request) -> Response {
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        var body: ByteBuffer
        if json.count >= worthIt {
            headers[.vary] = "Accept-Encoding"
            if accepted(by: request), let zipped = compress(json, level: .perRequest) {
                headers[.contentEncoding] = "gzip"
                body = ByteBuffer(bytes: zipped)
            } else {
                body = ByteBuffer(bytes: json)
            }
        } else {
            body = ByteBuffer(bytes: json)
        }
        headers[.contentLength] = String(body.readableBytes)
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: body))
    }
}

/// The API's encoder for `Encodable` answers: `APIRequestContext.encoder`'s JSON, through
/// `Gzip.jsonResponse` as `FastJSON` answers go.
struct APIResponseEncoder: ResponseEncoder {
    func encode(_ value: some Encodable, from request: Request, context: some RequestContext) throws -> Response {
        let data = try APIRequestContext.encoder.encode(value)
        return data.withUnsafeBytes { Gzip.jsonResponse($0, for: request) }
    }
}
