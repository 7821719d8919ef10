import Foundation

/// An ID token as received: a compact JWS (RFC 7515) whose header and claims are read but not
/// yet trusted. `IDTokenCheck` decides whether to trust it.
struct IDToken: Sendable {
    let algorithm: SigningAlgorithm
    let keyID: String?
    let claims: IDTokenClaims
    /// `header.payload` as sent: what the signature covers.
    let signingInput: [UInt8]
    let signature: [UInt8]

    /// A token longer than this is refused unread (providers' are 1 to 2 KB).
    static let maxBytes = 16 * 1024

    init(_ text: String) throws(OpenIDError) {
        guard text.utf8.count <= Self.maxBytes else { throw .malformedToken("longer than \(Self.maxBytes) bytes") }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .malformedToken("not three dot-separated parts (an encrypted token is not taken)") }
        guard let headerBytes = Base64URL.decode(parts[0]), let payload = Base64URL.decode(parts[1]),
              let signature = Base64URL.decode(parts[2]) else { throw .malformedToken("a part is not base64url") }
        struct Header: Decodable {
            var alg: String
            var kid: String?
            var crit: [String]?
        }
        let header: Header
        do { header = try JSONDecoder().decode(Header.self, from: Data(headerBytes)) } catch {
            throw .malformedToken("its header is not a JSON object with \"alg\"")
        }
        // RFC 7515 §4.1.11: an extension the recipient does not understand makes the token invalid.
        if let critical = header.crit, !critical.isEmpty { throw .malformedToken("it requires extensions (crit: \(OpenIDError.shown(critical.joined(separator: ", "))))") }
        guard let algorithm = SigningAlgorithm(rawValue: header.alg) else { throw .unsupportedAlgorithm(OpenIDError.shown(header.alg)) }
        do { claims = try JSONDecoder().decode(IDTokenClaims.self, from: Data(payload)) } catch {
            throw .malformedToken("its claims are not a JSON object with iss, sub, aud, exp and iat")
        }
        self.algorithm = algorithm
        keyID = header.kid
        signingInput = Array(parts[0].utf8) + [0x2E] + Array(parts[1].utf8)
        self.signature = signature
    }
}

/// What an ID token says about whom it signs in (OpenID Connect Core §2, §5.1), as read.
public struct IDTokenClaims: Sendable, Equatable, Decodable {
    public var issuer: String
    public var subject: String
    public var audience: [String]
    public var authorizedParty: String?
    public var expires: Int64
    public var issuedAt: Int64
    public var notBefore: Int64?
    public var nonce: String?
    /// When the person last signed in at the provider (`auth_time`; required when the request
    /// asked for `max_age`, as a re-authentication does).
    public var authTime: Int64?
    public var email: String?
    public var emailVerified: Bool
    public var preferredUsername: String?
    public var name: String?

    enum CodingKeys: String, CodingKey {
        case iss, sub, aud, azp, exp, iat, nbf, nonce, email, name
        case authTime = "auth_time"
        case emailVerified = "email_verified", preferredUsername = "preferred_username"
    }

    /// The subject is at most this long (Core §2: 255 ASCII characters).
    static let maxSubjectBytes = 255

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        issuer = try c.decode(String.self, forKey: .iss)
        subject = try c.decode(String.self, forKey: .sub)
        guard !subject.isEmpty, subject.utf8.count <= Self.maxSubjectBytes else {
            throw DecodingError.dataCorruptedError(forKey: .sub, in: c, debugDescription: "sub is 1 to 255 bytes")
        }
        // `aud` is one string or an array of them (Core §2).
        if let one = try? c.decode(String.self, forKey: .aud) { audience = [one] } else { audience = try c.decode([String].self, forKey: .aud) }
        authorizedParty = try c.decodeIfPresent(String.self, forKey: .azp)
        expires = try Self.seconds(c, .exp)
        issuedAt = try Self.seconds(c, .iat)
        notBefore = try c.decodeIfPresent(Double.self, forKey: .nbf).map { try Self.whole($0, c, .nbf) }
        nonce = try c.decodeIfPresent(String.self, forKey: .nonce)
        authTime = try c.decodeIfPresent(Double.self, forKey: .authTime).map { try Self.whole($0, c, .authTime) }
        email = try? c.decodeIfPresent(String.self, forKey: .email)
        // Some providers (AWS Cognito) write it as the string "true".
        if let flag = try? c.decodeIfPresent(Bool.self, forKey: .emailVerified) { emailVerified = flag }
        else { emailVerified = (try? c.decodeIfPresent(String.self, forKey: .emailVerified)) == "true" }
        preferredUsername = try? c.decodeIfPresent(String.self, forKey: .preferredUsername)
        name = try? c.decodeIfPresent(String.self, forKey: .name)
    }

    /// NumericDate: seconds since the epoch, maybe with a fraction.
    private static func seconds(_ c: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws -> Int64 {
        try whole(try c.decode(Double.self, forKey: key), c, key)
    }

    private static func whole(_ value: Double, _ c: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws -> Int64 {
        guard value.isFinite, abs(value) < 1e15 else {
            throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "not a date")
        }
        return Int64(value.rounded(.down))
    }
}

/// The checks an ID token passes before anyone is signed in by it (OpenID Connect Core
/// §3.1.3.7), but its signature (`OpenIDClient`, which holds the keys): one rule, stated here.
public struct IDTokenCheck: Sendable {
    public let issuer: String
    public let clientID: String
    /// How far the provider's clock may be from ours, in seconds, for `exp`, `iat` and `nbf`.
    public let leeway: Int64

    public static let defaultLeeway: Int64 = 60

    public init(issuer: String, clientID: String, leeway: Int64 = IDTokenCheck.defaultLeeway) {
        self.issuer = issuer; self.clientID = clientID; self.leeway = leeway
    }

    /// Throws the first check `claims` fail at `now`; `nonce` is the one the sign-in sent.
    public func check(_ claims: IDTokenClaims, nonce: String, now: Int64) throws(OpenIDError) {
        guard claims.issuer == issuer else { throw .wrongIssuer(OpenIDError.shown(claims.issuer)) }
        guard claims.audience.contains(clientID) else { throw .wrongAudience }
        // Several audiences: this client must be the party it was issued to (`azp`); one given must be us.
        if claims.audience.count > 1 || claims.authorizedParty != nil {
            guard claims.authorizedParty == clientID else { throw .wrongAudience }
        }
        guard now < claims.expires + leeway else { throw .expired }
        guard claims.issuedAt <= now + leeway, (claims.notBefore ?? now) <= now + leeway else { throw .notYetValid }
        guard let sent = claims.nonce, Self.equal(sent, nonce) else { throw .nonceMismatch }
    }

    /// Compared in time that depends on the lengths only.
    static func equal(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
