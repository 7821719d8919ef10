#if canImport(Glibc)
import Glibc
#endif

/// Which addresses a fetcher connects to. `feedctl serve` fetches what its clients name (a feed
/// to subscribe, a page to save), so its fetcher refuses local addresses: a client must not
/// reach through the server what only the server's machine can. The check is on the address
/// libcurl is about to connect to (`CURLOPT_OPENSOCKETFUNCTION`), every hop and every address
/// a name resolves to, so a public URL that redirects to 127.0.0.1, a page whose feed link is
/// private, and a name that resolves differently at fetch time are refused too, before any
/// connection is made. (With a proxy configured through the environment, the address checked
/// is the proxy's.)
public struct AddressPolicy: Sendable {
    /// Whether a connection to this address and port is refused; nil: none is.
    let refuses: (@Sendable (_ address: String, _ port: Int) -> Bool)?

    public static let any = AddressPolicy(refuses: nil)
    /// Refuses every address `NetworkAddress.isLocal` names.
    public static let publicOnly = AddressPolicy { address, _ in NetworkAddress.isLocal(address) }

    /// Tests refuse one of their servers' ports on 127.0.0.1 (they have no public address).
    package init(refuses: (@Sendable (_ address: String, _ port: Int) -> Bool)?) {
        self.refuses = refuses
    }
}

public enum NetworkAddress {
    /// Loopback, private (RFC 1918, IPv6 unique-local), link-local, carrier-grade NAT, "this
    /// network", multicast and unspecified addresses; IPv4-mapped IPv6 as its IPv4 address.
    /// Anything that is not an address is local too: refuse rather than guess.
    public static func isLocal(_ address: String) -> Bool {
        var text = address.lowercased()
        if let percent = text.firstIndex(of: "%") { text = String(text[..<percent]) }  // fe80::1%eth0
        if text.hasPrefix("::ffff:"), text.contains(".") { text = String(text.dropFirst(7)) }
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            let a = UInt32(bigEndian: v4.s_addr)
            let (b0, b1) = (a >> 24, (a >> 16) & 0xFF)
            return b0 == 0 || b0 == 10 || b0 == 127 || (b0 == 169 && b1 == 254) || (b0 == 172 && (16...31).contains(b1))
                || (b0 == 192 && b1 == 168) || (b0 == 100 && (64...127).contains(b1)) || b0 >= 224
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return true }
        let bytes = withUnsafeBytes(of: v6) { Array($0) }
        if bytes.allSatisfy({ $0 == 0 }) { return true }                                   // ::
        if bytes[0..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return true }          // ::1
        if bytes[0] & 0xFE == 0xFC { return true }                                          // fc00::/7
        if bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80 { return true }                      // fe80::/10
        if bytes[0] == 0xFF { return true }                                                 // multicast
        return false
    }

    /// The numeric text and port of a socket address (`127.0.0.1`, `::1`), nil when it has none.
    static func text(_ address: UnsafePointer<sockaddr>, length: socklen_t) -> (address: String, port: Int)? {
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        var service = [CChar](repeating: 0, count: Int(NI_MAXSERV))
        guard getnameinfo(address, length, &host, socklen_t(host.count), &service, socklen_t(service.count),
                          NI_NUMERICHOST | NI_NUMERICSERV) == 0 else { return nil }
        func string(_ chars: [CChar]) -> String { String(decoding: chars.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        return (string(host), Int(string(service)) ?? 0)
    }
}
