import Foundation
import HTTPFetch
import OpenIDConnect
import TestSupport
import XCTest

/// The relying party's checks on ID tokens, against providers on 127.0.0.1: tokens the real
/// OpenID provider (oidc-provider-mock) issues, and, where a refusal needs a token it will not
/// mint (expired, badly signed, ES256, a key it never published, another issuer on the same
/// keys), tokens the test's own issuer signs with its own keys, served from a JWKS the test
/// controls (`Tests/Support/oidc_provider.py test-issuer`).
final class IDTokenVerificationTests: XCTestCase {
    private func client(_ issuer: String, clientID: String, clock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) },
                        refresh: Int64 = 60) -> OpenIDClient {
        OpenIDClient(settings: ClientSettings(issuer: issuer, clientID: clientID, clientSecret: "secret", scopes: ["openid"]),
                     fetcher: .shared, clock: clock, keyRefreshInterval: refresh)
    }

    private var now: Int64 { Int64(Date().timeIntervalSince1970) }

    /// A real provider's RS256 token verifies for the client it was issued to, with its nonce;
    /// for another client it is the wrong audience, with another nonce it is refused, and a
    /// byte changed in its claims or signature breaks the signature.
    func testTheRealProvidersTokens() async throws {
        let provider = try OpenIDTestProvider(.real)
        try await provider.setClaims(subject: "alice", ["email": "alice@example.com", "email_verified": true, "preferred_username": "alice"])
        let token = try await provider.idToken(clientID: "feedctl", subject: "alice", nonce: "n-1")

        let claims = try await client(provider.issuer, clientID: "feedctl").verify(idToken: token, nonce: "n-1")
        XCTAssertEqual(claims.issuer, provider.issuer)
        XCTAssertEqual(claims.subject, "alice")
        XCTAssertEqual(claims.audience, ["feedctl"])
        XCTAssertEqual(claims.email, "alice@example.com")
        XCTAssertTrue(claims.emailVerified)
        // Authlib writes auth_time as the time it issues the token (the mock keeps none of its own).
        let authTime = try XCTUnwrap(claims.authTime, "auth_time")
        XCTAssertLessThanOrEqual(abs(authTime - Int64(Date().timeIntervalSince1970)), 60)

        await assertThrows(OpenIDError.wrongAudience) { try await self.client(provider.issuer, clientID: "another-app").verify(idToken: token, nonce: "n-1") }
        await assertThrows(OpenIDError.nonceMismatch) { try await self.client(provider.issuer, clientID: "feedctl").verify(idToken: token, nonce: "n-2") }

        // The claims changed after signing (another subject written in), and a signature byte flipped.
        let parts = token.split(separator: ".").map(String.init)
        var payload = try XCTUnwrap(try JSONSerialization.jsonObject(with: base64URL(parts[1])) as? [String: Any])
        payload["sub"] = "mallory"
        let forged = [parts[0], encodeBase64URL(try JSONSerialization.data(withJSONObject: payload)), parts[2]].joined(separator: ".")
        await assertThrows(OpenIDError.badSignature) { try await self.client(provider.issuer, clientID: "feedctl").verify(idToken: forged, nonce: "n-1") }
        var signature = base64URLBytes(parts[2])
        signature[signature.count / 2] ^= 1
        let flipped = [parts[0], parts[1], encodeBase64URL(signature)].joined(separator: ".")
        await assertThrows(OpenIDError.badSignature) { try await self.client(provider.issuer, clientID: "feedctl").verify(idToken: flipped, nonce: "n-1") }
    }

    /// The discovery document must name the issuer configured, exactly: the real provider's
    /// is `http://127.0.0.1:PORT`, so one configured with a trailing slash is another issuer.
    func testADiscoveryDocumentOfAnotherIssuerIsRefused() async throws {
        let provider = try OpenIDTestProvider(.real)
        let wrong = client(provider.issuer + "/", clientID: "feedctl")
        await assertThrows(OpenIDError.badDiscovery("it names issuer \(provider.issuer), not \(provider.issuer)/")) {
            try await wrong.providerMetadata()
        }
        let metadata = try await client(provider.issuer, clientID: "feedctl").providerMetadata()
        XCTAssertEqual(metadata.tokenEndpoint, provider.issuer + "/oauth2/token")
        XCTAssertEqual(metadata.tokenEndpointAuthMethods, ["client_secret_basic"], "unsaid: basic")
    }

    /// Times, with the 60 s leeway; ES256; a token from another issuer on the same keys; one
    /// signed by a key the set does not publish; `none` and HS256 never.
    func testTheTestIssuersTokens() async throws {
        let issuer = try OpenIDTestProvider(.testIssuer(clientID: "feedctl", clientSecret: "s"))
        let rp = client(issuer.issuer, clientID: "feedctl")
        let now = self.now
        func claims(_ changes: [String: Any] = [:]) -> [String: Any] {
            ["iss": issuer.issuer, "sub": "tess", "aud": "feedctl", "iat": now, "exp": now + 300, "nonce": "n"].merging(changes) { $1 }
        }
        _ = try await rp.verify(idToken: try await issuer.mint(claims()), nonce: "n")
        let es256 = try await rp.verify(idToken: try await issuer.mint(claims(["sub": "ec"]), alg: "ES256"), nonce: "n")
        XCTAssertEqual(es256.subject, "ec")
        _ = try await rp.verify(idToken: try await issuer.mint(claims(["exp": now - 30])), nonce: "n")   // within the leeway
        await assertThrows(OpenIDError.expired) { try await rp.verify(idToken: try await issuer.mint(claims(["exp": now - 120, "iat": now - 600])), nonce: "n") }
        await assertThrows(OpenIDError.notYetValid) { try await rp.verify(idToken: try await issuer.mint(claims(["iat": now + 600])), nonce: "n") }
        await assertThrows(OpenIDError.notYetValid) { try await rp.verify(idToken: try await issuer.mint(claims(["nbf": now + 600])), nonce: "n") }
        await assertThrows(OpenIDError.nonceMismatch) { try await rp.verify(idToken: try await issuer.mint(claims().filter { $0.key != "nonce" }), nonce: "n") }
        await assertThrows(OpenIDError.wrongIssuer("https://elsewhere.example")) {
            try await rp.verify(idToken: try await issuer.mint(claims(["iss": "https://elsewhere.example"])), nonce: "n")
        }
        // Several audiences: this client must be the authorized party.
        await assertThrows(OpenIDError.wrongAudience) { try await rp.verify(idToken: try await issuer.mint(claims(["aud": ["feedctl", "other"]])), nonce: "n") }
        _ = try await rp.verify(idToken: try await issuer.mint(claims(["aud": ["feedctl", "other"], "azp": "feedctl"])), nonce: "n")
        await assertThrows(OpenIDError.badSignature) { try await rp.verify(idToken: try await issuer.mint(claims(), key: "unpublished"), nonce: "n") }
        await assertThrows(OpenIDError.badSignature) { try await rp.verify(idToken: try await issuer.mint(claims(), alg: "ES256", tamper: "signature"), nonce: "n") }

        // Unsigned, or an HMAC keyed with what is public: refused before any key is looked at.
        let body = encodeBase64URL(try JSONSerialization.data(withJSONObject: claims()))
        for alg in ["none", "HS256"] {
            let header = encodeBase64URL(Data(#"{"alg":"\#(alg)","kid":"rsa-1"}"#.utf8))
            await assertThrows(OpenIDError.unsupportedAlgorithm(alg)) { try await rp.verify(idToken: "\(header).\(body).", nonce: "n") }
        }
        await assertThrows(OpenIDError.malformedToken("not three dot-separated parts (an encrypted token is not taken)")) {
            try await rp.verify(idToken: "a.b", nonce: "n")
        }
    }

    /// A token naming a key the set lacks makes the client fetch the set again (a provider
    /// rotated its keys), but at most once per interval: made-up key ids cannot make it hammer
    /// the provider.
    func testUnknownKeysRefreshTheSetAtMostOncePerInterval() async throws {
        let issuer = try OpenIDTestProvider(.testIssuer(clientID: "feedctl", clientSecret: "s"))
        let clock = TestClockValue(now)
        let rp = client(issuer.issuer, clientID: "feedctl", clock: { clock.value }, refresh: 60)
        let now = self.now
        let claims: [String: Any] = ["iss": issuer.issuer, "sub": "tess", "aud": "feedctl", "iat": now, "exp": now + 3600, "nonce": "n"]
        _ = try await rp.verify(idToken: try await issuer.mint(claims), nonce: "n")
        await assertEqual(try await issuer.stats().jwksFetches, 1)
        try await issuer.rotateKeys()
        clock.value += 61
        _ = try await rp.verify(idToken: try await issuer.mint(claims, key: "rsa-2"), nonce: "n")
        await assertEqual(try await issuer.stats().jwksFetches, 2, "a new key id: the set fetched again")
        await assertThrows(OpenIDError.unknownKey("made-up")) { try await rp.verify(idToken: try await issuer.mint(claims, kid: "made-up"), nonce: "n") }
        await assertEqual(try await issuer.stats().jwksFetches, 2, "within the interval: not fetched again")
        clock.value += 61
        await assertThrows(OpenIDError.unknownKey("made-up")) { try await rp.verify(idToken: try await issuer.mint(claims, kid: "made-up"), nonce: "n") }
        await assertEqual(try await issuer.stats().jwksFetches, 3)
        let fetches = await rp.keyFetches
        XCTAssertEqual(fetches, 3)
    }

    /// RFC 7636 Appendix B's example: the S256 challenge of its verifier.
    func testThePKCEChallengeIsRFC7636s() throws {
        let secrets = SignInSecrets(state: "s", nonce: "n", verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        XCTAssertEqual(try secrets.challenge, "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        let a = SignInSecrets(), b = SignInSecrets()
        XCTAssertNotEqual(a.state, b.state)
        XCTAssertEqual(a.state.count, 43, "32 random bytes, base64url")
    }

    /// The authorization URL asks for a code for this client, with the state, nonce and S256
    /// challenge, every value percent-encoded.
    func testTheAuthorizationURL() async throws {
        let provider = try OpenIDTestProvider(.real)
        let rp = OpenIDClient(settings: ClientSettings(issuer: provider.issuer, clientID: "feed ctl&x", clientSecret: nil, scopes: ["email"]))
        let secrets = SignInSecrets()
        let url = try await rp.authorizationURL(redirectURI: "http://127.0.0.1:8000/api/auth/oidc/callback", secrets: secrets)
        let components = try XCTUnwrap(URLComponents(string: url))
        XCTAssertEqual(components.path, "/oauth2/authorize")
        let query = Dictionary(uniqueKeysWithValues: (components.queryItems ?? []).map { ($0.name, $0.value ?? "") })
        XCTAssertEqual(query, [
            "response_type": "code", "client_id": "feed ctl&x", "redirect_uri": "http://127.0.0.1:8000/api/auth/oidc/callback",
            "scope": "openid email", "state": secrets.state, "nonce": secrets.nonce,
            "code_challenge": try secrets.challenge, "code_challenge_method": "S256",
        ])
        // A re-authentication: the person signs in again, and the token must say when (auth_time).
        let again = try await rp.authorizationURL(redirectURI: "http://127.0.0.1:8000/api/auth/oidc/callback", secrets: secrets, freshLogin: true)
        let fresh = Dictionary(uniqueKeysWithValues: (URLComponents(string: again)?.queryItems ?? []).map { ($0.name, $0.value ?? "") })
        XCTAssertEqual(fresh["prompt"], "login")
        XCTAssertEqual(fresh["max_age"], "0")
        XCTAssertEqual(fresh.filter { $0.key != "prompt" && $0.key != "max_age" }, query)
    }
}

private final class TestClockValue: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Int64
    init(_ value: Int64) { stored = value }
    var value: Int64 {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

private func base64URL(_ text: String) -> Data {
    var plain = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    plain += String(repeating: "=", count: (4 - plain.count % 4) % 4)
    return Data(base64Encoded: plain) ?? Data()
}

private func base64URLBytes(_ text: String) -> [UInt8] { Array(base64URL(text)) }

private func encodeBase64URL(_ data: Data) -> String {
    data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
}

private func encodeBase64URL(_ bytes: [UInt8]) -> String { encodeBase64URL(Data(bytes)) }
