import CLibCrypto

/// Message digests by OpenSSL's libcrypto (the system's, loaded on first use: `CLibCrypto`):
/// SHA-256 of session tokens, SHA-1 of Podcast Index's signature. Neither is a password hash
/// (passwords are bcrypt's).
public enum Digest: Sendable {
    case sha1
    case sha256

    /// The digest of `bytes`.
    public func of(_ bytes: [UInt8]) throws(DigestUnavailable) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(FEEDCTL_DIGEST_MAX))
        let algorithm = self == .sha1 ? FEEDCTL_DIGEST_SHA1 : FEEDCTL_DIGEST_SHA256
        let size = bytes.withUnsafeBytes { data in
            out.withUnsafeMutableBufferPointer { feedctl_digest(algorithm, data.baseAddress, data.count, $0.baseAddress) }
        }
        guard size > 0 else { throw DigestUnavailable() }
        return Array(out.prefix(Int(size)))
    }

    /// Made once: a token is hashed on every request.
    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// The digest of `text`'s UTF-8 bytes, as lowercase hex.
    public func hex(_ text: String) throws(DigestUnavailable) -> String {
        var out: [UInt8] = []
        for byte in try of(Array(text.utf8)) {
            out.append(Self.hexDigits[Int(byte >> 4)])
            out.append(Self.hexDigits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// libcrypto could not be loaded (or refused the digest): nothing can be hashed.
public struct DigestUnavailable: Error, Sendable, Equatable, CustomStringConvertible {
    public init() {}
    public var description: String { "OpenSSL's libcrypto (libcrypto.so.3, Debian's libssl3) could not be loaded" }
}
