import HTTPFetch

/// Why a sign-in through the OpenID provider failed, in one line for a person. Two families:
/// the provider could not be used (`isProviderFailure`: unreachable, a broken discovery document
/// or key set; the server answers 502), and an answer that must not sign anyone in (a token
/// refused by a check: wrong issuer, audience, signature, times or nonce; 401).
public enum OpenIDError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A fetch from the provider failed (discovery, keys or the token request): what, and why.
    case unreachable(what: String, FetchError)
    /// The discovery document is not one this client can use (missing endpoint, another issuer).
    case badDiscovery(String)
    /// The key set (JWKS) is not JSON with usable keys.
    case badKeys(String)
    /// The token endpoint refused the code (expired, used, for another client…).
    case tokenRefused(String)
    /// The ID token is not a compact JWS with JSON header and claims.
    case malformedToken(String)
    /// Signed with an algorithm this client does not take (only RS256 and ES256: never `none`
    /// or an HMAC with a public key).
    case unsupportedAlgorithm(String)
    /// No key of the provider's set has this id, even after fetching the set again.
    case unknownKey(String)
    case badSignature
    /// `iss` is not the configured issuer.
    case wrongIssuer(String)
    /// `aud` does not name this client (or several audiences without this client as `azp`).
    case wrongAudience
    case expired
    /// Issued (`iat`) or valid (`nbf`) only in the future.
    case notYetValid
    /// The token's `nonce` is missing or not the one this sign-in sent.
    case nonceMismatch
    /// libcrypto (OpenSSL, Debian's libssl3) could not be loaded: nothing can be verified.
    case cryptoUnavailable

    /// The provider could not be used, as opposed to an answer that was refused.
    public var isProviderFailure: Bool {
        switch self {
        case .unreachable, .badDiscovery, .badKeys, .cryptoUnavailable: true
        case .tokenRefused, .malformedToken, .unsupportedAlgorithm, .unknownKey, .badSignature, .wrongIssuer, .wrongAudience,
             .expired, .notYetValid, .nonceMismatch: false
        }
    }

    public var description: String {
        switch self {
        case .unreachable(let what, let error): "the provider's \(what) could not be fetched: \(error)"
        case .badDiscovery(let why): "the provider's discovery document is not usable: \(why)"
        case .badKeys(let why): "the provider's keys (JWKS) are not usable: \(why)"
        case .tokenRefused(let why): "the provider refused the sign-in's code: \(why)"
        case .malformedToken(let why): "the ID token is malformed: \(why)"
        case .unsupportedAlgorithm(let alg): "the ID token is signed with \(alg); only RS256 and ES256 are accepted"
        case .unknownKey(let kid): "the ID token is signed with key \(kid), which the provider's key set does not have"
        case .badSignature: "the ID token's signature is not the provider's"
        case .wrongIssuer(let issuer): "the ID token is from \(issuer), not the configured issuer"
        case .wrongAudience: "the ID token is for another client (its audience is not this client id)"
        case .expired: "the ID token has expired"
        case .notYetValid: "the ID token is dated in the future"
        case .nonceMismatch: "the ID token's nonce is missing or not this sign-in's"
        case .cryptoUnavailable: "OpenSSL's libcrypto (libcrypto.so.3, Debian's libssl3) could not be loaded: no signature can be checked"
        }
    }

    /// Text from a provider or a token, shown in a message: one line, printable, at most 200 characters.
    public static func shown(_ text: String) -> String {
        let line = String(text.unicodeScalars.map { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) ? " " : Character($0) })
        return line.count > 200 ? String(line.prefix(200)) + "…" : line
    }
}
