import Accounts
import FeedModel
import Hummingbird
import LibraryStore

/// `/api/auth/login|logout|me|session/validate`, public (no token needed to reach them), in the
/// backend's shapes (app/api/auth.py). A failed login answers as the backend does, 200 with
/// `success: false`, the same whether the name exists or not; too many failures answer 429 with
/// Retry-After. Nothing here logs a password or a token.
struct AuthRoutes {
    let authenticator: any Authenticator
    /// Served over TLS: the session cookie is `Secure`.
    let secure: Bool
    /// `oidc.forbid_password_login`: whether users with a single sign-on identity may use a password.
    let passwordSignIn: PasswordSignIn
    let log: @Sendable (String) -> Void

    func add(to router: Router<APIRequestContext>) {
        router.post("api/auth/login") { request, context in try await login(request, context) }
        router.post("api/auth/logout") { request, _ in try await logout(request) }
        router.get("api/auth/me") { request, _ in
            let user = try await authenticator.authenticate(request)
            return CurrentUserResponse(authenticated: user != nil, user: user.map(Self.publicUser))
        }
        router.post("api/auth/session/validate") { request, _ in
            ValidResponse(valid: try await authenticator.authenticate(request) != nil)
        }
    }

    static func publicUser(_ user: APIUser) -> UserPublic { UserPublic(id: user.id, name: user.name, hasPassword: user.hasPassword) }

    func login(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let body = try await RequestBody.decode(LoginBody.self, request, context: context)
        guard let logins = authenticator.logins else {
            return try LoginResponse(success: false, message: "this server is in open mode: no login (every request acts for the library's owner)")
                .response(from: request, context: context)
        }
        let device = body.deviceName.map { String($0.prefix(Self.maxDeviceNameCharacters)) }
        let address = context.peerAddress ?? "unknown"
        let outcome = try await logins.login(name: body.username, password: body.password ?? body.pin ?? "",
                                             deviceName: device, address: address, passwordSignIn: passwordSignIn)
        switch outcome {
        case .success(let token, let user):
            log("login: \(user.name) from \(address)")
            var response = try LoginResponse(success: true, token: token.text,
                                             user: UserPublic(id: user.id, name: user.name, hasPassword: user.hasPassword))
                .response(from: request, context: context)
            response.headers[values: .setCookie].append(SessionCookie.set(token, secure: secure))
            return response
        case .failure:
            log("login failed from \(address)")
            return try LoginResponse(success: false, message: "invalid user name or password").response(from: request, context: context)
        case .singleSignOnOnly:
            log("login refused from \(address): a single sign-on user tried a password")
            return try LoginResponse(success: false, message: "this account signs in through single sign-on only: use the sign-in button of its provider")
                .response(from: request, context: context)
        case .throttled(let wait):
            log("login refused from \(address): too many failures")
            var headers = HTTPFields()
            headers[.contentType] = "application/json; charset=utf-8"
            headers[.retryAfter] = String(wait)
            let detail = "too many failed logins: try again in \(wait) s"
            return Response(status: .tooManyRequests, headers: headers,
                            body: .init(byteBuffer: ByteBuffer(string: APIError.json(detail: detail))))
        }
    }

    /// Ends the session the request presented, if it is a live one, and clears the cookie; as
    /// the backend, it answers `{"success": true}` either way.
    func logout(_ request: Request) async throws -> Response {
        if let logins = authenticator.logins, let user = try await authenticator.authenticate(request) {
            if let session = user.sessionID {
                do throws(LibraryError) {
                    try await logins.logout(session: session)
                } catch {
                    throw APIError(error)
                }
            } else if let token = TokenAuthenticator.token(in: request) {
                logins.logout(pending: token)
            }
        }
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        headers[values: .setCookie].append(SessionCookie.clear(secure: secure))
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: #"{"success":true}"#)))
    }

    /// A device name is kept to this many characters (`feedctl user sessions` shows it).
    static let maxDeviceNameCharacters = 100
}
