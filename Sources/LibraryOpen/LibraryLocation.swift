/// Where a library is, as `--db` or `FEEDCTL_DB` says it: a SQLite file, or a PostgreSQL
/// database named by a URL. Made valid where it is read (`init(parsing:setting:)`), then trusted.
public enum LibraryLocation: Sendable, Equatable, CustomStringConvertible {
    /// A SQLite file (its path as given: a relative path is from the current directory).
    case sqlite(path: String)
    case postgresql(PostgresURL)

    /// `text` read as a location: a `postgresql://` or `postgres://` URL (libpq's form) is a
    /// PostgreSQL database, anything else without a URL scheme is a file path. `setting` names
    /// where the text came from (`--db`, `FEEDCTL_DB`), for the one-line error.
    public init(parsing text: String, setting: String) throws(LibraryOpenError) {
        if text.isEmpty { throw .badSetting("\(setting) is empty: give a file path or a postgresql:// URL") }
        if PostgresURL.hasScheme(text) {
            self = .postgresql(try PostgresURL(parsing: text, setting: setting))
            return
        }
        if let scheme = Self.urlScheme(text) {
            // A path never starts with `word://`: this is a URL of something feedctl cannot open.
            throw .badSetting("\(setting) \(PostgresURL.masking(text)): a \(scheme):// URL is no library;"
                              + " give a file path or a postgresql:// URL")
        }
        self = .sqlite(path: text)
    }

    /// For messages: the path, or the URL with its password masked.
    public var description: String {
        switch self {
        case .sqlite(let path): path
        case .postgresql(let url): url.description
        }
    }

    /// `mysql` for `mysql://…`: an RFC 3986 scheme followed by `://`.
    static func urlScheme(_ text: String) -> String? {
        guard let end = text.range(of: "://")?.lowerBound else { return nil }
        let scheme = text[..<end]
        guard let first = scheme.first, first.isASCII, first.isLetter,
              scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }) else { return nil }
        return String(scheme)
    }
}

/// A PostgreSQL connection URL in libpq's form, checked as libpq reads it:
/// `postgresql://[user[:password]@][host][:port][,host[:port]…][/dbname][?name=value[&…]]`, every
/// part percent-encoded where needed; a host that is a directory (`?host=/run/dir`, or
/// `%2Frun%2Fdir`) is a Unix socket's. libpq parses `text` again when it connects: this makes a
/// bad URL a one-line error before anything starts, and knows where its password is, so that
/// nothing prints it.
public struct PostgresURL: Sendable, Equatable, CustomStringConvertible {
    public struct Host: Sendable, Equatable {
        /// A name, an address (IPv6 without its brackets) or a socket directory; empty: libpq's
        /// default (its socket directory).
        public var name: String
        public var port: Int?
    }

    public struct Parameter: Sendable, Equatable {
        public var name: String
        public var value: String
    }

    /// The URL as given, for libpq. Holds the password: never print it (`description` masks it).
    public let text: String
    public let user: String?
    public let password: String?
    /// At least one (an empty name when the URL names none).
    public let hosts: [Host]
    public let database: String?
    /// The query's parameters, decoded, in order (libpq checks their names when it connects).
    public let parameters: [Parameter]

    /// The socket directory the connection uses, if any: a `host` parameter or a host that is an
    /// absolute path (libpq's rule: a host starting with `/` is a directory).
    public var socketDirectory: String? {
        let host = parameters.last { $0.name == "host" }?.value ?? hosts.first?.name ?? ""
        return host.hasPrefix("/") ? host : nil
    }

    /// The URL with its password (and any `password`/`sslpassword` parameter) as `***`.
    public var description: String { Self.masking(text) }

    static let schemes = ["postgresql://", "postgres://"]

    static func hasScheme(_ text: String) -> Bool { schemes.contains { text.hasPrefix($0) } }

    public init(parsing text: String, setting: String) throws(LibraryOpenError) {
        guard let scheme = Self.schemes.first(where: { text.hasPrefix($0) }) else {
            throw .badSetting("\(setting) \(Self.masking(text)): not a postgresql:// URL")
        }
        func bad(_ why: String) -> LibraryOpenError { .badSetting("\(setting) \(Self.masking(text)): \(why)") }
        func decoded(_ part: Substring, _ what: String) throws(LibraryOpenError) -> String {
            guard let value = Self.percentDecoded(part) else {
                throw bad("\(what) has a bad %-escape (write % as %25; %00 is not allowed)")
            }
            return value
        }
        self.text = text
        var rest = text.dropFirst(scheme.count)

        // libpq: the user part is everything before an `@` that comes before any `/`.
        var user: String?, password: String?
        if let at = rest.firstIndex(where: { $0 == "@" || $0 == "/" }), rest[at] == "@" {
            let userInfo = rest[..<at]
            if let colon = userInfo.firstIndex(of: ":") {
                user = try decoded(userInfo[..<colon], "the user name")
                password = try decoded(userInfo[userInfo.index(after: colon)...], "the password")
            } else {
                user = try decoded(userInfo, "the user name")
            }
            rest = rest[rest.index(after: at)...]
        }
        self.user = user.flatMap { $0.isEmpty ? nil : $0 }
        self.password = password.flatMap { $0.isEmpty ? nil : $0 }

        // Hosts, each with an optional port, separated by commas; up to `/` or `?`.
        var hosts: [Host] = []
        while true {
            var name: Substring
            if rest.first == "[" {
                guard let close = rest.firstIndex(of: "]") else { throw bad("an IPv6 address has no closing ]") }
                name = rest[rest.index(after: rest.startIndex)..<close]
                if name.isEmpty { throw bad("an IPv6 address is empty ([])") }
                rest = rest[rest.index(after: close)...]
                if let next = rest.first, !":/?,".contains(next) { throw bad("after an IPv6 address's ] comes :port, /, ? or a comma") }
            } else {
                let end = rest.firstIndex { ":/?,".contains($0) } ?? rest.endIndex
                name = rest[..<end]
                rest = rest[end...]
            }
            var port: Int?
            if rest.first == ":" {
                rest = rest.dropFirst()
                let end = rest.firstIndex { "/?,".contains($0) } ?? rest.endIndex
                let digits = try decoded(rest[..<end], "a port")
                rest = rest[end...]
                if !digits.isEmpty {
                    guard digits.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(digits), (1...65_535).contains(number) else {
                        throw bad("a port is a number from 1 to 65535")
                    }
                    port = number
                }
            }
            if name.contains("@") { throw bad("an @ in a user name or password is written %40") }
            hosts.append(Host(name: try decoded(name, "a host"), port: port))
            guard rest.first == "," else { break }
            rest = rest.dropFirst()
        }
        self.hosts = hosts

        var database: String?
        if rest.first == "/" {
            rest = rest.dropFirst()
            let end = rest.firstIndex(of: "?") ?? rest.endIndex
            let name = try decoded(rest[..<end], "the database name")
            database = name.isEmpty ? nil : name
            rest = rest[end...]
        }
        self.database = database

        var parameters: [Parameter] = []
        if rest.first == "?" {
            for pair in rest.dropFirst().split(separator: "&", omittingEmptySubsequences: false) where !pair.isEmpty {
                let parts = pair.split(separator: "=", maxSplits: 2, omittingEmptySubsequences: false)
                guard parts.count == 2, !parts[0].isEmpty else {
                    throw bad(parts.count > 2 ? "a query parameter has two = (write = in a value as %3D)"
                                              : "a query parameter is not name=value")
                }
                parameters.append(Parameter(name: try decoded(parts[0], "a query parameter's name"),
                                            value: try decoded(parts[1], "a query parameter's value")))
            }
        }
        self.parameters = parameters
    }

    /// `text` with whatever may be a password replaced by `***`: the values of `password` and
    /// `sslpassword` parameters, and the user part's password, from the first `:` after the
    /// scheme to the *last* `@`. A password with a `/`, `?` or `@` written raw (which libpq would
    /// not read as one) is hidden too: this may hide more than the password, never less.
    static func masking(_ text: String) -> String {
        guard let scheme = text.range(of: "://") else { return text }
        let rest = text[scheme.upperBound...]
        var unmasked = ""
        var index = rest.startIndex
        // Every `?` or `&` may start a parameter (one inside a value too: more is masked, not less).
        while let separator = rest[index...].firstIndex(where: { $0 == "?" || $0 == "&" }) {
            unmasked += rest[index...separator]
            let start = rest.index(after: separator)
            let end = rest[start...].firstIndex(of: "&") ?? rest.endIndex
            let pair = rest[start..<end]
            if let equals = pair.firstIndex(of: "="), ["password", "sslpassword"].contains(percentDecoded(pair[..<equals]) ?? "") {
                unmasked += pair[...equals] + "***"
                index = end
            } else {
                index = start
            }
        }
        unmasked += rest[index...]
        if let at = unmasked.lastIndex(of: "@"), let colon = unmasked[..<at].firstIndex(of: ":") {
            unmasked = String(unmasked[...colon]) + "***" + unmasked[at...]
        }
        return String(text[..<scheme.upperBound]) + unmasked
    }

    /// `%XX` escapes decoded as UTF-8 bytes (libpq's rule: `+` is itself, `%00` is refused); nil
    /// for a broken escape or bytes that are not UTF-8.
    static func percentDecoded(_ part: Substring) -> String? {
        var bytes: [UInt8] = []
        var utf8 = part.utf8.makeIterator()
        while let byte = utf8.next() {
            guard byte == UInt8(ascii: "%") else { bytes.append(byte); continue }
            guard let high = utf8.next().flatMap(Self.hexValue), let low = utf8.next().flatMap(Self.hexValue) else { return nil }
            let value = high << 4 | low
            if value == 0 { return nil }
            bytes.append(value)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
