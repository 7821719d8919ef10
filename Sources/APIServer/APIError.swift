import Digests
import Hummingbird
import LibraryStore

/// An answer other than success, with one line for the person: written as the backend writes
/// its errors, `{"detail": "…"}` (the web client shows `detail`).
public struct APIError: Error, Sendable, HTTPResponseError {
    public var status: HTTPResponse.Status
    public var detail: String
    /// Seconds until the request may succeed (a throttled login): sent as `Retry-After`.
    var retryAfter: Int64?
    /// What the server's log says of it and the client is not told (the library's file).
    var cause: String?
    /// Fields the answer carries besides its own (a 416's `Content-Range`).
    var headers = HTTPFields()

    public init(_ status: HTTPResponse.Status, _ detail: String) {
        self.status = status; self.detail = detail
    }

    static func badRequest(_ detail: String) -> APIError { APIError(.badRequest, detail) }
    static func tooManyRequests(_ detail: String, retryAfter: Int64) -> APIError {
        var error = APIError(.tooManyRequests, detail)
        error.retryAfter = retryAfter
        return error
    }
    /// A parameter or body field with a value out of its range or of the wrong kind (FastAPI's 422).
    static func unprocessable(_ detail: String) -> APIError { APIError(.unprocessableContent, detail) }
    static func notFound(_ detail: String) -> APIError { APIError(.notFound, detail) }
    static let unauthorized = APIError(.unauthorized, "not signed in: send a token (Authorization: Bearer …)")
    /// What a write answers when the library's disk is full (reads and logins still work).
    static let diskFull = "the server's disk is full: nothing was changed; try again once its administrator has freed space"

    /// The library's errors as HTTP: what it lacks is 404, what it refuses is 422 or 409, a full
    /// disk is 507 (Insufficient Storage: the server cannot keep what was sent, and a retry
    /// succeeds once there is room) and only a failing database is 500; neither names the file.
    /// The server cannot hash tokens (libcrypto missing): nobody can sign in until it is installed.
    init(_ error: DigestUnavailable) { self.init(.internalServerError, error.description) }

    init(_ error: LibraryError) {
        switch error {
        case .noItem, .noItems, .noChannel, .noCollection, .noCollectionID, .noSavedVideo, .noUser, .noSession, .noIdentity,
             .notPublished, .noSharedCollection, .noFollowedCollection: self.init(.notFound, error.description)
        case .collectionExists, .alreadyInCollection, .userExists, .userKept, .identityTaken, .alreadyFollowing: self.init(.conflict, error.description)
        case .withdrawnCollection: self.init(.gone, error.description)
        case .notInCollection: self.init(.notFound, error.description)
        case .invalid: self.init(.unprocessableContent, error.description)
        case .database(let failure) where failure.kind == .diskFull:
            self.init(.insufficientStorage, Self.diskFull)
        case .database(let failure):
            self.init(.internalServerError, error.descriptionWithoutPaths)
            cause = failure.description
        }
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var body = ByteBuffer()
        body.writeString(Self.json(detail: detail))
        var headers = self.headers
        headers[.contentType] = "application/json; charset=utf-8"
        if status == .unauthorized { headers[.wwwAuthenticate] = "Bearer" }
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        return Response(status: status, headers: headers, body: .init(byteBuffer: body))
    }

    /// `{"detail": …}`, FastAPI's error body (a struct of one string always encodes).
    static func json(detail: String) -> String {
        struct Detail: Encodable { var detail: String }
        return (try? APIRequestContext.encoder.encode(Detail(detail: detail))).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}

extension HTTPResponse.Status {
    /// RFC 4918's 507, which swift-http-types does not name.
    static let insufficientStorage = HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage")
}
