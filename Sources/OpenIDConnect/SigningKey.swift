import CLibCrypto
import Foundation

/// The algorithms an ID token may be signed with here: those OpenID Connect providers use with
/// public keys. Never `none`, never an HMAC (whose "key" would be the public one).
public enum SigningAlgorithm: String, Sendable, CaseIterable {
    case rs256 = "RS256"
    case es256 = "ES256"
}

/// One public key of the provider's set (a JWK), as DER for libcrypto, with what it may check.
struct SigningKey: Sendable, Equatable {
    let id: String?
    let algorithm: SigningAlgorithm
    /// SubjectPublicKeyInfo.
    let der: [UInt8]

    /// RSA keys shorter than this are refused (RFC 7518 §3.3: 2048 bits or more).
    static let minimumRSABits = 2048

    /// The key a JWK describes, nil for one this client does not use: an encryption key
    /// (`use` other than `sig`), a type or curve other than RSA and EC P-256, or a key whose
    /// `alg` names another algorithm.
    init?(_ jwk: JWK) {
        if let use = jwk.use, use != "sig" { return nil }
        switch jwk.kty {
        case "RSA":
            guard jwk.alg == nil || jwk.alg == SigningAlgorithm.rs256.rawValue,
                  let n = jwk.n.flatMap({ Base64URL.decode(Substring($0)) }), let e = jwk.e.flatMap({ Base64URL.decode(Substring($0)) }),
                  Self.bits(n) >= Self.minimumRSABits, !e.isEmpty else { return nil }
            algorithm = .rs256
            der = DER.rsaPublicKey(modulus: n, exponent: e)
        case "EC":
            guard jwk.crv == "P-256", jwk.alg == nil || jwk.alg == SigningAlgorithm.es256.rawValue,
                  let x = jwk.x.flatMap({ Base64URL.decode(Substring($0)) }), let y = jwk.y.flatMap({ Base64URL.decode(Substring($0)) }),
                  x.count == 32, y.count == 32 else { return nil }
            algorithm = .es256
            der = DER.p256PublicKey(x: x, y: y)
        default:
            return nil
        }
        id = jwk.kid
    }

    /// Whether `signature` over `message` is this key's (`algorithm`'s encoding: RS256's bytes
    /// as they are, ES256's r‖s of 64 bytes).
    func verifies(_ signature: [UInt8], over message: [UInt8]) throws(OpenIDError) -> Bool {
        let encoded: [UInt8]
        switch algorithm {
        case .rs256: encoded = signature
        case .es256:
            guard signature.count == 64 else { return false }
            encoded = DER.ecdsaSignature(signature)
        }
        let result = der.withUnsafeBufferPointer { key in
            encoded.withUnsafeBufferPointer { sig in
                message.withUnsafeBufferPointer { data in
                    feedctl_verify_sha256(key.baseAddress, key.count, sig.baseAddress, sig.count, data.baseAddress, data.count)
                }
            }
        }
        switch result {
        case FEEDCTL_VERIFY_VALID: return true
        case FEEDCTL_VERIFY_INVALID: return false
        case FEEDCTL_VERIFY_BAD_KEY: throw .badKeys("libcrypto refused key \(id ?? "(no id)") (not a valid \(algorithm.rawValue) public key)")
        default: throw .cryptoUnavailable
        }
    }

    private static func bits(_ magnitude: [UInt8]) -> Int {
        let bytes = magnitude.drop(while: { $0 == 0 })
        guard let first = bytes.first else { return 0 }
        return (bytes.count - 1) * 8 + (8 - first.leadingZeroBitCount)
    }
}

/// A JSON Web Key as a key set lists it (RFC 7517); only the members read here.
struct JWK: Decodable, Sendable {
    var kty: String
    var kid: String?
    var use: String?
    var alg: String?
    var n: String?
    var e: String?
    var crv: String?
    var x: String?
    var y: String?
}

/// The provider's key set: the keys this client can use, by id.
struct KeySet: Sendable {
    let keys: [SigningKey]

    init(json: [UInt8]) throws(OpenIDError) {
        struct Document: Decodable { var keys: [FailableKey] }
        /// A key this decoder cannot read is skipped, not the set.
        struct FailableKey: Decodable {
            var jwk: JWK?
            init(from decoder: any Decoder) throws { jwk = try? JWK(from: decoder) }
        }
        let document: Document
        do { document = try JSONDecoder().decode(Document.self, from: Data(json)) } catch {
            throw .badKeys("not a JSON object with a \"keys\" array")
        }
        keys = document.keys.compactMap { $0.jwk.flatMap(SigningKey.init) }
        guard !keys.isEmpty else { throw .badKeys("no RS256 or ES256 signing key among its \(document.keys.count)") }
    }

    /// The keys that may have signed a token with this header: the one with its `kid`, or (no
    /// `kid`) every key of its algorithm.
    func candidates(kid: String?, algorithm: SigningAlgorithm) -> [SigningKey] {
        keys.filter { $0.algorithm == algorithm && (kid == nil || $0.id == kid) }
    }
}
