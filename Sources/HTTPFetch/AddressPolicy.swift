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
    /// Whether a connection to `address` would reach this machine or its networks rather than
    /// the internet: loopback, private (RFC 1918, IPv6 unique-local), link-local, carrier-grade
    /// NAT, "this network", benchmarking, IETF protocol assignments, multicast, reserved and
    /// unspecified addresses. An IPv6 address that carries an IPv4 one is judged by it
    /// (IPv4-mapped `::ffff:0:0/96`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`); the deprecated or
    /// tunnelled forms nothing public needs are local outright (IPv4-compatible `::/96`, local-use
    /// NAT64 `64:ff9b:1::/48`, Teredo `2001::/32`, site-local `fec0::/10`, discard `100::/64`).
    /// IPv4 is read in every form the resolver and libcurl accept (`2130706433`, `0177.0.0.1`,
    /// `0x7f.1`, `127.1`); IPv6 with or without brackets and a zone (`[fe80::1%eth0]`). Anything
    /// that is not an address is local too: refuse rather than guess.
    public static func isLocal(_ address: String) -> Bool {
        switch parse(address) {
        case .v4(let a)?: isLocal(v4: a)
        case .v6(let bytes)?: isLocal(v6: bytes)
        case nil: true
        }
    }

    enum Parsed: Equatable {
        /// Host order.
        case v4(UInt32)
        /// Network order, 16 bytes.
        case v6([UInt8])
    }

    /// The address `text` names, nil when it names none.
    static func parse(_ text: String) -> Parsed? {
        var text = Substring(text)
        if text.hasPrefix("["), text.hasSuffix("]") { text = text.dropFirst().dropLast() }
        if let percent = text.firstIndex(of: "%") { text = text[..<percent] }          // fe80::1%eth0
        guard !text.isEmpty, !text.utf8.contains(where: { $0 <= 0x20 || $0 >= 0x7F }) else { return nil }
        let plain = String(text)
        var v6 = in6_addr()
        if plain.contains(":") {
            guard inet_pton(AF_INET6, plain, &v6) == 1 else { return nil }
            return .v6(withUnsafeBytes(of: v6) { Array($0) })
        }
        // inet_aton, not inet_pton: it reads the decimal, octal, hex and short forms as the
        // resolver (getaddrinfo) and libcurl do, so each is judged as the address it connects to.
        var v4 = in_addr()
        guard inet_aton(plain, &v4) != 0 else { return nil }
        return .v4(UInt32(bigEndian: v4.s_addr))
    }

    static func isLocal(v4 a: UInt32) -> Bool {
        let (b0, b1, b2) = (a >> 24, (a >> 16) & 0xFF, (a >> 8) & 0xFF)
        return b0 == 0                                    // "this network", 0.0.0.0
            || b0 == 10 || b0 == 127
            || (b0 == 100 && (64...127).contains(b1))     // carrier-grade NAT
            || (b0 == 169 && b1 == 254)                   // link-local (cloud metadata)
            || (b0 == 172 && (16...31).contains(b1))
            || (b0 == 192 && b1 == 0 && b2 == 0)          // IETF protocol assignments
            || (b0 == 192 && b1 == 168)
            || (b0 == 198 && (18...19).contains(b1))      // benchmarking
            || b0 >= 224                                  // multicast, reserved, broadcast
    }

    static func isLocal(v6 b: [UInt8]) -> Bool {
        func embedded(at i: Int) -> UInt32 { b[i..<(i + 4)].reduce(0) { $0 << 8 | UInt32($1) } }
        func zero(_ range: Range<Int>) -> Bool { b[range].allSatisfy { $0 == 0 } }
        if zero(0..<10), b[10] == 0xFF, b[11] == 0xFF { return isLocal(v4: embedded(at: 12)) }        // ::ffff:a.b.c.d
        if zero(0..<8), b[8] == 0xFF, b[9] == 0xFF, zero(10..<12) { return isLocal(v4: embedded(at: 12)) } // ::ffff:0:a.b.c.d
        if zero(0..<12) { return true }                                       // ::, ::1, ::a.b.c.d
        if b[0] == 0x00, b[1] == 0x64, b[2] == 0xFF, b[3] == 0x9B {
            if zero(4..<12) { return isLocal(v4: embedded(at: 12)) }          // NAT64 64:ff9b::a.b.c.d
            return true                                                       // 64:ff9b:1::/48 and the rest
        }
        if b[0] == 0x20, b[1] == 0x02 { return isLocal(v4: embedded(at: 2)) } // 6to4
        if b[0] == 0x20, b[1] == 0x01, b[2] == 0, b[3] == 0 { return true }   // Teredo
        if b[0] == 0x01, b[1] == 0x00, zero(2..<8) { return true }            // discard-only 100::/64
        if b[0] & 0xFE == 0xFC { return true }                                // unique-local fc00::/7
        if b[0] == 0xFE, b[1] & 0x80 == 0x80 { return true }                  // link-local fe80::/10, site-local fec0::/10
        if b[0] == 0xFF { return true }                                       // multicast
        return false
    }

    /// The first local address `host` (a URL's host, IPv6 in brackets) resolves to now, nil when
    /// none does (or it does not resolve). For an answer before anything is fetched; what is
    /// fetched is checked again where it connects (`AddressPolicy`).
    public static func localAddress(ofHost host: String) -> String? {
        let name = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return resolve(name).first(where: isLocal)
    }

    /// Every address `host` resolves to, as text.
    static func resolve(_ host: String) -> [String] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return [] }
        defer { freeaddrinfo(first) }
        var addresses: [String] = []
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let entry = node {
            if let address = entry.pointee.ai_addr, let found = text(address, length: entry.pointee.ai_addrlen) {
                addresses.append(found.address)
            }
            node = entry.pointee.ai_next
        }
        return addresses
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
