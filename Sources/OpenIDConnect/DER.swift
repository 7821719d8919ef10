/// The few DER structures a JOSE key or signature becomes for libcrypto: a SubjectPublicKeyInfo
/// (RFC 5480 for EC P-256, RFC 8017 for RSA) and an ECDSA-Sig-Value (JWS writes ECDSA
/// signatures as r‖s; libcrypto reads DER). Writing, never parsing: libcrypto reads the result
/// and refuses what is not a key (an EC point off the curve included).
enum DER {
    /// rsaEncryption, then its NULL parameters.
    private static let rsaAlgorithm: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01, 0x05, 0x00]
    /// id-ecPublicKey, then the named curve prime256v1 (P-256).
    private static let p256Algorithm: [UInt8] = [0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01,
                                                 0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07]

    static func rsaPublicKey(modulus: [UInt8], exponent: [UInt8]) -> [UInt8] {
        let key = sequence(integer(modulus) + integer(exponent))
        return sequence(sequence(rsaAlgorithm) + bitString(key))
    }

    /// An uncompressed point (0x04 ‖ x ‖ y) on P-256.
    static func p256PublicKey(x: [UInt8], y: [UInt8]) -> [UInt8] {
        sequence(sequence(p256Algorithm) + bitString([0x04] + x + y))
    }

    /// r‖s (each half of `raw`) as DER's SEQUENCE of two INTEGERs.
    static func ecdsaSignature(_ raw: [UInt8]) -> [UInt8] {
        let half = raw.count / 2
        return sequence(integer(Array(raw[..<half])) + integer(Array(raw[half...])))
    }

    /// A non-negative big-endian INTEGER: no leading zeros but one where the top bit is set.
    static func integer(_ magnitude: [UInt8]) -> [UInt8] {
        var bytes = Array(magnitude.drop(while: { $0 == 0 }))
        if bytes.isEmpty || bytes[0] & 0x80 != 0 { bytes.insert(0, at: 0) }
        return element(0x02, bytes)
    }

    static func sequence(_ content: [UInt8]) -> [UInt8] { element(0x30, content) }

    /// No unused bits.
    static func bitString(_ content: [UInt8]) -> [UInt8] { element(0x03, [0] + content) }

    static func element(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        [tag] + length(content.count) + content
    }

    static func length(_ count: Int) -> [UInt8] {
        if count < 0x80 { return [UInt8(count)] }
        var bytes: [UInt8] = []
        var rest = count
        while rest > 0 { bytes.insert(UInt8(rest & 0xFF), at: 0); rest >>= 8 }
        return [0x80 | UInt8(bytes.count)] + bytes
    }
}
