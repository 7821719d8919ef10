import Foundation

/// RFC 4648 §5 base64url without padding, as JOSE writes every binary value.
enum Base64URL {
    static func encode(_ bytes: [UInt8]) -> String {
        var text = Data(bytes).base64EncodedString()
        text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }

    /// nil for anything but base64url (padding tolerated).
    static func decode(_ text: Substring) -> [UInt8]? {
        var plain = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard !plain.contains("=") || plain.hasSuffix("=") else { return nil }
        while plain.hasSuffix("=") { plain.removeLast() }
        guard plain.utf8.allSatisfy({ $0 == 0x2B || $0 == 0x2F || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }),
              plain.count % 4 != 1 else { return nil }
        plain += String(repeating: "=", count: (4 - plain.count % 4) % 4)
        return Data(base64Encoded: plain).map(Array.init)
    }
}
