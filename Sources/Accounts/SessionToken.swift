import Digests
import FeedModel

/// A login session's token: `SessionRule.tokenBytes` random bytes from the system's generator
/// (`SystemRandomNumberGenerator`: getrandom(2)), written base64url without padding. It is shown
/// to its holder once; the library keeps only `hash`, so a copy of the library file lets no one in.
public struct SessionToken: Sendable, Equatable, CustomStringConvertible {
    /// What the client sends back (`Authorization: Bearer …`, the `session_token` cookie).
    public let text: String

    /// A new random token.
    public init() {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<SessionRule.tokenBytes).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        text = Base64URL.encode(bytes)
    }

    /// A token a client presented.
    public init(presented text: String) { self.text = text }

    /// The lowercase hex SHA-256 of the token's text: the key the library stores and looks up.
    public var hash: String { get throws(DigestUnavailable) { try Self.hash(of: text) } }

    public static func hash(of text: String) throws(DigestUnavailable) -> String {
        try Digest.sha256.hex(text)
    }

    /// Never the token itself: descriptions end up in logs.
    public var description: String { "SessionToken(hash \((try? hash)?.prefix(8) ?? "unavailable")…)" }
}

/// RFC 4648 §5 base64url, without padding (tokens go in headers and cookies as they are).
enum Base64URL {
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index < bytes.count {
            let b0 = UInt32(bytes[index])
            let b1 = index + 1 < bytes.count ? UInt32(bytes[index + 1]) : 0
            let b2 = index + 2 < bytes.count ? UInt32(bytes[index + 2]) : 0
            let triple = b0 << 16 | b1 << 8 | b2
            let chars = min(4, (bytes.count - index) * 4 / 3 + ((bytes.count - index) < 3 ? 1 : 0))
            for k in 0..<chars { out.append(alphabet[Int(triple >> UInt32(18 - 6 * k) & 0x3F)]) }
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
}
