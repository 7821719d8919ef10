import FeedModel
import Foundation
import HTTPFetch

/// A relying party of one OpenID provider: what this server is configured with.
public struct ClientSettings: Sendable, Equatable {
    /// Exactly as the provider writes `iss` (Auth0's ends with `/`, Keycloak's does not).
    public var issuer: String
    public var clientID: String
    /// nil: a public client (PKCE alone; the token request names only the client id).
    public var clientSecret: String?
    /// Asked for at the authorization endpoint (`openid` is always among them).
    public var scopes: [String]

    public init(issuer: String, clientID: String, clientSecret: String?, scopes: [String]) {
        self.issuer = issuer; self.clientID = clientID; self.clientSecret = clientSecret
        self.scopes = scopes.contains("openid") ? scopes : ["openid"] + scopes
    }
}

/// Talks to the provider for the server: its discovery document and keys (fetched with the
/// project's HTTP client, bounded, and cached), the authorization URL of a sign-in, the code
/// exchanged for tokens, and the ID token verified (signature by the provider's key, then
/// `IDTokenCheck`). The key set is fetched again when a token names a key it lacks (a provider
/// rotated its keys), at most once per `keyRefreshInterval`, so tokens naming made-up key ids
/// cannot make the server hammer the provider.
public actor OpenIDClient {
    public let settings: ClientSettings
    private let fetcher: Fetcher
    private let clock: @Sendable () -> Int64
    private let keyRefreshInterval: Int64
    private var metadata: (value: ProviderMetadata, fetched: Int64)?
    private var keys: KeySet?
    private var keysFetched: Int64?
    /// How many times the key set was fetched (a test's window on the refresh rule).
    public private(set) var keyFetches = 0

    /// The discovery document is kept this long, then fetched again on the next use.
    public static let metadataLifetime: Int64 = 24 * 3600
    public static let defaultKeyRefreshInterval: Int64 = 60
    /// Bounds on what the provider sends (discovery documents are a few KB, key sets less).
    static let maxDocumentBytes = 256 * 1024

    /// `clock`: the time tokens are checked at (the provider's clock is the system's; a test
    /// of expiry mints its own tokens rather than moving this).
    public init(settings: ClientSettings, fetcher: Fetcher = .shared, clock: @escaping @Sendable () -> Int64 = { Clock.now() },
                keyRefreshInterval: Int64 = OpenIDClient.defaultKeyRefreshInterval) {
        self.settings = settings; self.fetcher = fetcher; self.clock = clock; self.keyRefreshInterval = keyRefreshInterval
    }

    /// The provider's discovery document (cached for `metadataLifetime`; a failure is not cached).
    public func providerMetadata() async throws(OpenIDError) -> ProviderMetadata {
        let now = clock()
        if let metadata, now - metadata.fetched < Self.metadataLifetime, now >= metadata.fetched { return metadata.value }
        let body = try await get(ProviderMetadata.discoveryURL(issuer: settings.issuer), what: "discovery document")
        let value = try ProviderMetadata(json: body, issuer: settings.issuer)
        metadata = (value, now)
        return value
    }

    /// Where to send the person: the authorization endpoint with a code request for this
    /// client, `redirectURI` (the server's callback), the scopes, and `secrets`' state, nonce
    /// and PKCE challenge (S256). `freshLogin`: the person must sign in at the provider again
    /// even if it remembers them (`prompt=login`, and `max_age=0`, which makes the ID token
    /// carry `auth_time`: OpenID Connect Core §3.1.2.1).
    public func authorizationURL(redirectURI: String, secrets: SignInSecrets, freshLogin: Bool = false) async throws(OpenIDError) -> String {
        let endpoint = try await providerMetadata().authorizationEndpoint
        var fields = [
            ("response_type", "code"), ("client_id", settings.clientID), ("redirect_uri", redirectURI),
            ("scope", settings.scopes.joined(separator: " ")), ("state", secrets.state), ("nonce", secrets.nonce),
            ("code_challenge", try secrets.challenge), ("code_challenge_method", "S256"),
        ]
        if freshLogin { fields += [("prompt", "login"), ("max_age", "0")] }
        return endpoint + (endpoint.contains("?") ? "&" : "?") + FormEncoding.encode(fields)
    }

    /// The sign-in's end: `code` exchanged at the token endpoint (with the PKCE verifier and
    /// the client's secret), and the ID token it answers verified for `secrets.nonce`.
    public func signIn(code: String, redirectURI: String, secrets: SignInSecrets) async throws(OpenIDError) -> IDTokenClaims {
        let idToken = try await exchange(code: code, redirectURI: redirectURI, verifier: secrets.verifier)
        return try await verify(idToken: idToken, nonce: secrets.nonce)
    }

    /// The ID token the token endpoint answers for `code`.
    func exchange(code: String, redirectURI: String, verifier: String) async throws(OpenIDError) -> String {
        let metadata = try await providerMetadata()
        var form = [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI), ("code_verifier", verifier)]
        var headers = ["Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"]
        if let secret = settings.clientSecret {
            if metadata.tokenEndpointAuthMethods.contains("client_secret_basic") || !metadata.tokenEndpointAuthMethods.contains("client_secret_post") {
                // RFC 6749 §2.3.1: each form-encoded, then joined and base64'd.
                let pair = FormEncoding.escape(settings.clientID) + ":" + FormEncoding.escape(secret)
                headers["Authorization"] = "Basic " + Data(pair.utf8).base64EncodedString()
            } else {
                form += [("client_id", settings.clientID), ("client_secret", secret)]
            }
        } else {
            form.append(("client_id", settings.clientID))
        }
        let request = FetchRequest(url: metadata.tokenEndpoint, maxBytes: 64 * 1024, connectTimeout: 5, totalTimeout: 15,
                                   stallTimeout: 10, maxRedirects: 0, headers: headers, body: Array(FormEncoding.encode(form).utf8))
        let response: FetchResponse
        do { response = try await fetcher.fetch(request) } catch {
            if case .http(let status) = error.kind, (400..<500).contains(status) {
                throw .tokenRefused(error.reason)
            }
            throw .unreachable(what: "token endpoint", error)
        }
        struct Tokens: Decodable { var id_token: String? }
        guard let tokens = try? JSONDecoder().decode(Tokens.self, from: Data(response.body)) else {
            throw .tokenRefused("its answer is not JSON")
        }
        guard let idToken = tokens.id_token else { throw .tokenRefused("its answer has no id_token (is \"openid\" among the scopes?)") }
        return idToken
    }

    /// Verifies `idToken`: its signature by one of the provider's keys, then `IDTokenCheck`
    /// (issuer, audience, times, `nonce`). Returns its claims.
    public func verify(idToken: String, nonce: String) async throws(OpenIDError) -> IDTokenClaims {
        let token = try IDToken(idToken)
        var candidates = try await currentKeys().candidates(kid: token.keyID, algorithm: token.algorithm)
        if candidates.isEmpty, try await refreshKeys() {
            candidates = try await currentKeys().candidates(kid: token.keyID, algorithm: token.algorithm)
        }
        guard !candidates.isEmpty else { throw .unknownKey(OpenIDError.shown(token.keyID ?? "(none, \(token.algorithm.rawValue))")) }
        var verified = false
        for key in candidates where !verified {
            verified = try key.verifies(token.signature, over: token.signingInput)
        }
        guard verified else { throw .badSignature }
        try IDTokenCheck(issuer: settings.issuer, clientID: settings.clientID).check(token.claims, nonce: nonce, now: clock())
        return token.claims
    }

    private func currentKeys() async throws(OpenIDError) -> KeySet {
        if let keys { return keys }
        _ = try await refreshKeys(force: true)
        guard let keys else { throw .badKeys("none fetched") }
        return keys
    }

    /// Fetches the key set again unless it was fetched less than `keyRefreshInterval` ago;
    /// whether it did.
    private func refreshKeys(force: Bool = false) async throws(OpenIDError) -> Bool {
        let now = clock()
        if !force, let last = keysFetched, now - last < keyRefreshInterval, now >= last { return false }
        keysFetched = now
        keyFetches += 1
        let url = try await providerMetadata().keysURL
        keys = try KeySet(json: try await get(url, what: "keys (JWKS)"))
        return true
    }

    private func get(_ url: String, what: String) async throws(OpenIDError) -> [UInt8] {
        let request = FetchRequest(url: url, maxBytes: Self.maxDocumentBytes, connectTimeout: 5, totalTimeout: 15, stallTimeout: 10,
                                   maxRedirects: 3, headers: ["Accept": "application/json"])
        do { return try await fetcher.fetch(request).body } catch { throw .unreachable(what: what, error) }
    }
}

/// `application/x-www-form-urlencoded` (and query strings): every byte but the unreserved ones
/// percent-encoded, so a value cannot break out of its field.
enum FormEncoding {
    static func encode(_ fields: [(String, String)]) -> String {
        fields.map { escape($0.0) + "=" + escape($0.1) }.joined(separator: "&")
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x2E, 0x5F, 0x7E: out.unicodeScalars.append(Unicode.Scalar(byte))
            default: out += "%" + String(byte, radix: 16, uppercase: true).leftPadded
            }
        }
        return out
    }
}

private extension String {
    var leftPadded: String { count == 1 ? "0" + self : self }
}
