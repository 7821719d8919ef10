import Digests
import Foundation

/// What the provider's discovery document (`ISSUER/.well-known/openid-configuration`, OpenID
/// Connect Discovery §4) says that this client uses.
public struct ProviderMetadata: Sendable, Equatable {
    public let issuer: String
    public let authorizationEndpoint: String
    public let tokenEndpoint: String
    public let keysURL: String
    /// How the token endpoint takes the client's secret (`client_secret_basic` when unsaid).
    public let tokenEndpointAuthMethods: [String]

    /// The document for `issuer`, checked: it names the same issuer exactly (§4.3: a document
    /// that names another is not this provider's) and every endpoint is an http(s) URL.
    init(json: [UInt8], issuer expected: String) throws(OpenIDError) {
        struct Document: Decodable {
            var issuer: String
            var authorization_endpoint: String
            var token_endpoint: String
            var jwks_uri: String
            var token_endpoint_auth_methods_supported: [String]?
        }
        let document: Document
        do { document = try JSONDecoder().decode(Document.self, from: Data(json)) } catch {
            throw .badDiscovery("not JSON with issuer, authorization_endpoint, token_endpoint and jwks_uri")
        }
        guard document.issuer == expected else {
            throw .badDiscovery("it names issuer \(OpenIDError.shown(document.issuer)), not \(expected)")
        }
        for (name, url) in [("authorization_endpoint", document.authorization_endpoint), ("token_endpoint", document.token_endpoint),
                            ("jwks_uri", document.jwks_uri)] where !Self.isHTTPURL(url) {
            throw .badDiscovery("its \(name) is not an http(s) URL: \(OpenIDError.shown(url))")
        }
        issuer = document.issuer
        authorizationEndpoint = document.authorization_endpoint
        tokenEndpoint = document.token_endpoint
        keysURL = document.jwks_uri
        tokenEndpointAuthMethods = document.token_endpoint_auth_methods_supported ?? ["client_secret_basic"]
    }

    /// Where the discovery document of `issuer` is (its path appended, RFC 8414 §5 for OpenID).
    static func discoveryURL(issuer: String) -> String {
        var base = issuer
        while base.hasSuffix("/") { base.removeLast() }
        return base + "/.well-known/openid-configuration"
    }

    static func isHTTPURL(_ text: String) -> Bool {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
              let host = url.host, !host.isEmpty else { return false }
        return !text.contains(where: { $0.isWhitespace })
    }
}

/// A sign-in's one-time values (RFC 6749 §10.12, OpenID Connect Core §3.1.2.1, RFC 7636): the
/// `state` that ties the provider's answer to this sign-in, the `nonce` the ID token must carry,
/// and PKCE's verifier, which only this server knows (the provider gets its S256 challenge).
/// Each is 32 random bytes from the system's generator, base64url.
public struct SignInSecrets: Sendable, Equatable {
    public let state: String
    public let nonce: String
    public let verifier: String

    public init() {
        state = Self.random(); nonce = Self.random(); verifier = Self.random()
    }

    /// Fixed values, for a test of the challenge.
    public init(state: String, nonce: String, verifier: String) {
        self.state = state; self.nonce = nonce; self.verifier = verifier
    }

    /// PKCE's S256 challenge: base64url(SHA-256(verifier)).
    public var challenge: String {
        get throws(OpenIDError) { try Self.challenge(of: verifier) }
    }

    static func challenge(of verifier: String) throws(OpenIDError) -> String {
        do { return Base64URL.encode(try Digest.sha256.of(Array(verifier.utf8))) } catch { throw .cryptoUnavailable }
    }

    /// 32 random bytes as base64url: also the browser's sign-in cookie.
    public static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        return Base64URL.encode((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }
}
