import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An OpenID provider on 127.0.0.1 for the single sign-on tests (`Tests/Support/oidc_provider.py`):
/// `.real` is oidc-provider-mock from PyPI (scripts/install-deps.sh puts it in the tests'
/// venv), a real provider whose login form a test fills as a person would; `.testIssuer` is
/// the test's own issuer, with its own keys, for the tokens the real one will not mint
/// (expired, badly signed, without a nonce, for another audience or issuer, ES256). Stopped
/// when released: closing its stdin ends it.
public final class OpenIDTestProvider: @unchecked Sendable {
    public enum Kind: Sendable { case real, testIssuer(clientID: String, clientSecret: String) }

    public let port: Int
    private let process = Process()
    private let input = Pipe()

    /// `http://127.0.0.1:PORT`: the issuer, as its tokens write it.
    public var issuer: String { "http://127.0.0.1:\(port)" }

    public init(_ kind: Kind) throws {
        let python = try Self.python()
        process.executableURL = URL(fileURLWithPath: python)
        var environment = ProcessInfo.processInfo.environment
        switch kind {
        case .real:
            process.arguments = [Self.script.path, "real"]
        case .testIssuer(let clientID, let clientSecret):
            process.arguments = [Self.script.path, "test-issuer"]
            environment["CLIENT_ID"] = clientID
            environment["CLIENT_SECRET"] = clientSecret
        }
        process.environment = environment
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let text = TestHTTPServer.firstLine(of: output.fileHandleForReading, timeout: 30)
        guard let text, let port = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            process.terminate()
            throw ProcessRunner.Failure(description: "oidc_provider.py did not print a port within 30 s (got \(text.debugDescription))")
        }
        self.port = port
    }

    deinit {
        try? input.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
    }

    /// The Python that has oidc-provider-mock and joserfc: python3's if it has them, else the
    /// tests' venv (`$XDG_CACHE_HOME/feedctl/web-venv`, made by scripts/install-deps.sh).
    static func python() throws -> String {
        let environment = ProcessInfo.processInfo.environment
        let cache = environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory() + "/.cache"
        let candidates = [cache + "/feedctl/web-venv/bin/python", "/usr/bin/python3"]
        for candidate in candidates where FileManager.default.isExecutableFile(atPath: candidate) {
            if let result = try? ProcessRunner.capture(candidate, ["-c", "import oidc_provider_mock, joserfc"], timeout: 30), result.status == 0 {
                return candidate
            }
        }
        throw ProcessRunner.Failure(description: "no Python with oidc-provider-mock and joserfc (looked at \(candidates.joined(separator: ", "))): run scripts/install-deps.sh")
    }

    static let script: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Support/oidc_provider.py")

    // MARK: The test issuer's controls

    /// The next ID token `/token` answers is shaped so (`oidc_provider.py`'s POST /next).
    public func shapeNextToken(_ shape: [String: Any]) async throws {
        let reply = try await OpenIDTestHTTP.send("POST", issuer + "/next", body: try JSONSerialization.data(withJSONObject: shape),
                                                  headers: ["Content-Type": "application/json"])
        guard reply.status == 204 else { throw ProcessRunner.Failure(description: "POST /next answered \(reply.status)") }
    }

    /// A token signed by the test issuer (`key`: rsa-1, ec-1, rsa-2 once rotated, or unpublished).
    public func mint(_ claims: [String: Any], alg: String = "RS256", key: String? = nil, kid: String? = nil,
                     tamper: String? = nil) async throws -> String {
        var shape: [String: Any] = ["claims": claims, "alg": alg]
        if let key { shape["key"] = key }
        if let kid { shape["kid"] = kid }
        if let tamper { shape["tamper"] = tamper }
        let reply = try await OpenIDTestHTTP.send("POST", issuer + "/mint", body: try JSONSerialization.data(withJSONObject: shape),
                                                  headers: ["Content-Type": "application/json"])
        guard let token = (try? JSONSerialization.jsonObject(with: reply.body) as? [String: Any])?["token"] as? String else {
            throw ProcessRunner.Failure(description: "POST /mint answered \(reply.status): \(reply.text)")
        }
        return token
    }

    /// Publishes another RSA key, rsa-2.
    public func rotateKeys() async throws {
        _ = try await OpenIDTestHTTP.send("POST", issuer + "/rotate")
    }

    /// What the test issuer saw: how many times its JWKS was fetched, and each token request's
    /// form (without the secret; `authorization` says whether a Basic header came).
    public func stats() async throws -> (jwksFetches: Int, tokenRequests: [[String: Any]]) {
        let reply = try await OpenIDTestHTTP.send("GET", issuer + "/stats")
        let object = try JSONSerialization.jsonObject(with: reply.body) as? [String: Any] ?? [:]
        return (object["jwks_fetches"] as? Int ?? -1, object["token_requests"] as? [[String: Any]] ?? [])
    }

    // MARK: The real provider, as a person and as another client

    /// Sets the claims the real provider gives `subject` (its `PUT /users/{sub}`).
    public func setClaims(subject: String, _ claims: [String: Any]) async throws {
        let path = subject.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? subject
        let reply = try await OpenIDTestHTTP.send("PUT", issuer + "/users/" + path, body: try JSONSerialization.data(withJSONObject: claims),
                                                  headers: ["Content-Type": "application/json"])
        guard reply.status == 204 else { throw ProcessRunner.Failure(description: "PUT /users answered \(reply.status): \(reply.text)") }
    }

    /// Signs in at the real provider's form as `subject` (what a person types there) for the
    /// authorization URL a client sent them to: where the provider sends the browser back.
    /// With `deny`, the person presses the form's Deny instead (the provider answers `error=access_denied`).
    public func authorize(_ authorizationURL: String, as subject: String, deny: Bool = false) async throws -> String {
        let form = "sub=\(Self.form(subject))" + (deny ? "&action=deny" : "")
        let reply = try await OpenIDTestHTTP.send("POST", authorizationURL, body: Data(form.utf8),
                                                  headers: ["Content-Type": "application/x-www-form-urlencoded"])
        guard (300..<400).contains(reply.status), let location = reply.headers["location"] else {
            throw ProcessRunner.Failure(description: "the provider's form answered \(reply.status), not a redirect: \(reply.text.prefix(300))")
        }
        return location
    }

    /// An ID token the real provider issues to another client, `clientID`, for `subject`
    /// (the test as that client: authorization request, form, token request).
    public func idToken(clientID: String, subject: String, nonce: String) async throws -> String {
        let callback = "http://127.0.0.1:9/callback"
        let query = [("response_type", "code"), ("client_id", clientID), ("redirect_uri", callback), ("scope", "openid email"),
                     ("state", "s"), ("nonce", nonce)].map { "\($0.0)=\(Self.form($0.1))" }.joined(separator: "&")
        let back = try await authorize(issuer + "/oauth2/authorize?" + query, as: subject)
        guard let code = URLComponents(string: back)?.queryItems?.first(where: { $0.name == "code" })?.value else {
            throw ProcessRunner.Failure(description: "no code in \(back)")
        }
        let body = [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", callback)]
            .map { "\($0.0)=\(Self.form($0.1))" }.joined(separator: "&")
        let basic = Data("\(clientID):secret".utf8).base64EncodedString()
        let reply = try await OpenIDTestHTTP.send("POST", issuer + "/oauth2/token", body: Data(body.utf8),
                                                  headers: ["Content-Type": "application/x-www-form-urlencoded", "Authorization": "Basic \(basic)"])
        guard let token = (try? JSONSerialization.jsonObject(with: reply.body) as? [String: Any])?["id_token"] as? String else {
            throw ProcessRunner.Failure(description: "the token endpoint answered \(reply.status): \(reply.text)")
        }
        return token
    }

    /// Percent-encoded for a query or form (all but the unreserved characters).
    public static func form(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")) ?? text
    }
}

/// A plain HTTP client for the sign-in flows: it never follows a redirect (each hop is the
/// test's to check) and keeps no cookies (a test sends the ones it means to).
public enum OpenIDTestHTTP {
    public struct Reply: Sendable {
        public var status: Int
        public var headers: [String: String]
        /// Every `Set-Cookie` field, in order.
        public var cookies: [String]
        public var body: Data
        public var text: String { String(decoding: body, as: UTF8.self) }
        /// The cookie named `name` this answer sets (its value; "" when it clears it).
        public func cookie(_ name: String) -> String? {
            cookies.compactMap { line -> String? in
                let pair = line.split(separator: ";", maxSplits: 1)[0]
                guard pair.hasPrefix(name + "=") else { return nil }
                return String(pair.dropFirst(name.count + 1))
            }.last
        }
    }

    /// One request with curl (`-D` for every header line, `Set-Cookie`s included), no redirect followed.
    public static func send(_ method: String, _ url: String, body: Data? = nil, headers: [String: String] = [:]) async throws -> Reply {
        let dir = FileManager.default.temporaryDirectory
        let id = UUID().uuidString
        let head = dir.appendingPathComponent("oidc-head-\(id)").path, out = dir.appendingPathComponent("oidc-body-\(id)").path
        let input = dir.appendingPathComponent("oidc-in-\(id)").path
        defer { for file in [head, out, input] { try? FileManager.default.removeItem(atPath: file) } }
        var arguments = ["-sS", "--max-time", "30", "-X", method, "-D", head, "-o", out, "-w", "%{http_code}"]
        if let body {
            try body.write(to: URL(fileURLWithPath: input))
            arguments += ["--data-binary", "@" + input]
        }
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { arguments += ["-H", "\(name): \(value)"] }
        arguments.append(url)
        let command = arguments
        let result = try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try ProcessRunner.capture("/usr/bin/curl", command, timeout: 40) })
            }
        }
        guard let status = Int(result.stdout) else { throw ProcessRunner.Failure(description: "curl \(url): \(result.stderr)") }
        var fields: [String: String] = [:], cookies: [String] = []
        for line in (try? String(contentsOfFile: head, encoding: .utf8))?.components(separatedBy: "\r\n") ?? [] {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased(), value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if name == "set-cookie" { cookies.append(value) }
            fields[name] = value
        }
        return Reply(status: status, headers: fields, cookies: cookies, body: (try? Data(contentsOf: URL(fileURLWithPath: out))) ?? Data())
    }
}
