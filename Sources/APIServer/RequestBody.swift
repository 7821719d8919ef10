import Foundation
import Hummingbird
import NIOCore

/// Request bodies, read once and capped (`APILimits.maxBodyBytes`, the context's upload size):
/// a body that is not JSON is a 400, JSON of the wrong shape or with a value out of range (a
/// fractional or huge number where a whole number goes) a 422 naming the field, and both say
/// why in one line. Never a 500.
enum RequestBody {
    /// The body's bytes; 413 past the cap.
    static func bytes(_ request: Request, context: APIRequestContext) async throws -> ByteBuffer {
        do {
            return try await request.body.collect(upTo: context.maxUploadSize)
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw APIError(.contentTooLarge, "request body larger than \(context.maxUploadSize) bytes")
        } catch is NIOTooManyBytesError {
            // What `collect(upTo:)` throws past the cap: uncaught, it was a 500.
            throw APIError(.contentTooLarge, "request body larger than \(context.maxUploadSize) bytes")
        }
    }

    /// The body decoded as `T`. With `emptyAs`, an empty body (a PUT without one, as the web
    /// client sends) is that value. A body must come as `application/json` (415 otherwise): a page
    /// on another site may post a form or `text/plain` anywhere, but not JSON without asking
    /// (`CrossSiteMiddleware`). `anyType`: gpodder.net's clients send JSON as whatever their HTTP
    /// library says (mygpoclient's urllib: a form's type); their credentials are never a browser's.
    static func decode<T: Decodable>(_ type: T.Type, _ request: Request, context: APIRequestContext, emptyAs: T? = nil,
                                     anyType: Bool = false) async throws -> T {
        let buffer = try await bytes(request, context: context)
        let data = Data(buffer.readableBytesView)
        if let emptyAs, data.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return emptyAs }
        if !anyType, !isJSON(request.headers[.contentType]) {
            throw APIError(.unsupportedMediaType, "send the body as JSON, with Content-Type: application/json"
                           + (request.headers[.contentType].map { " (not \($0))" } ?? " (it had no Content-Type)"))
        }
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch let error as DecodingError {
            throw describe(error, data)
        }
    }

    /// `application/json`, in any case, with or without parameters (`; charset=utf-8`).
    static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let mediaType = contentType.split(separator: ";", maxSplits: 1).first ?? ""
        return mediaType.trimmingCharacters(in: .whitespaces).lowercased() == "application/json"
    }

    private static func describe(_ error: DecodingError, _ data: Data) -> APIError {
        func path(_ keys: [any CodingKey]) -> String {
            keys.isEmpty ? "the body" : keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            // Foundation says "not valid JSON" for a number its field cannot hold too.
            let syntax = JSONSyntax.check(data)
            guard syntax.valid else { return .badRequest("malformed JSON in the request body") }
            guard let number = syntax.oddNumber else { return .unprocessable("the request body holds a value its field cannot take") }
            return .unprocessable("\(number.path.isEmpty ? "the body" : number.path) must be a whole number within range (got \(number.text))")
        case .dataCorrupted(let context):
            return .unprocessable("\(path(context.codingPath)): \(context.debugDescription)")
        case .keyNotFound(let key, let context):
            return .unprocessable("\(path(context.codingPath + [key])) is required")
        case .typeMismatch(let type, let context):
            return .unprocessable("\(path(context.codingPath)) must be \(describe(type))")
        case .valueNotFound(let type, let context):
            return .unprocessable("\(path(context.codingPath)) must be \(describe(type)), not null")
        @unknown default:
            return .unprocessable("the request body does not have the expected fields")
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Bool.Type: return "true or false"
        case is Int.Type, is Int64.Type: return "a whole number"
        case is Double.Type: return "a number"
        default:
            // A keyed container expects a Dictionary, an unkeyed one an Array.
            return String(describing: type).hasPrefix("Array") ? "a list" : "an object"
        }
    }
}
