import FeedText
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The namespaces feeds use, identified by URI (prefixes are the publisher's whim).
enum XMLNamespace: UInt8, Sendable {
    case none, atom, atom03, rss10, rdf, itunes, podcast, content, dc, dcterms, media, yt, xml, googleplay, other

    /// Known URIs; compared ASCII-case-insensitively because publishers miscapitalize them.
    private static let known: [(XMLNamespace, StaticString)] = [
        (.itunes, "http://www.itunes.com/dtds/podcast-1.0.dtd"),
        (.atom, "http://www.w3.org/2005/Atom"),
        (.media, "http://search.yahoo.com/mrss/"),
        (.media, "http://search.yahoo.com/mrss"),
        (.yt, "http://www.youtube.com/xml/schemas/2015"),
        (.content, "http://purl.org/rss/1.0/modules/content/"),
        (.dc, "http://purl.org/dc/elements/1.1/"),
        (.dcterms, "http://purl.org/dc/terms/"),
        (.podcast, "https://podcastindex.org/namespace/1.0"),
        (.podcast, "https://github.com/Podcastindex-org/podcast-namespace/blob/main/docs/1.0.md"),
        (.rss10, "http://purl.org/rss/1.0/"),
        (.rss10, "http://my.netscape.com/rdf/simple/0.9/"),
        (.rdf, "http://www.w3.org/1999/02/22-rdf-syntax-ns#"),
        (.atom03, "http://purl.org/atom/ns#"),
        (.xml, "http://www.w3.org/XML/1998/namespace"),
        (.googleplay, "http://www.google.com/schemas/play-podcasts/1.0"),
    ]

    /// The namespaces publishers use without declaring them, by their customary prefix: libxml2
    /// (in recover mode) reports such an element with its prefix and no namespace, and these are
    /// read as the namespace the prefix always stands for (as feedparser does).
    private static let customaryPrefixes: [(StaticString, XMLNamespace)] = [
        ("itunes", .itunes), ("media", .media), ("dc", .dc), ("dcterms", .dcterms), ("content", .content),
        ("podcast", .podcast), ("atom", .atom), ("googleplay", .googleplay), ("yt", .yt), ("rdf", .rdf),
    ]

    /// The namespace an undeclared `prefix` customarily stands for; nil for any other prefix.
    static func customary(prefix: UnsafePointer<UInt8>) -> XMLNamespace? {
        let c = UnsafeRawPointer(prefix).assumingMemoryBound(to: CChar.self)
        for (known, ns) in customaryPrefixes where strcmp(c, known.cString) == 0 { return ns }
        return nil
    }

    /// The URI a namespace is known by (its first spelling), for messages.
    var uri: String? {
        XMLNamespace.known.first { $0.0 == self }.map { $0.1.description }
    }

    init(uri: UnsafePointer<UInt8>?) {
        guard let uri else { self = .none; return }
        let c = UnsafeRawPointer(uri).assumingMemoryBound(to: CChar.self)
        for (ns, known) in XMLNamespace.known where strcasecmp(c, known.cString) == 0 {
            self = ns
            return
        }
        self = .other
    }

    var bit: UInt32 { 1 << UInt32(rawValue) }
}

extension StaticString {
    var cString: UnsafePointer<CChar> { UnsafeRawPointer(utf8Start).assumingMemoryBound(to: CChar.self) }
}

/// A local name as libxml2 hands it over (interned, NUL-terminated); compared as bytes so the
/// hot path allocates no Strings.
struct XMLName {
    let bytes: UnsafePointer<UInt8>

    var cString: UnsafePointer<CChar> { UnsafeRawPointer(bytes).assumingMemoryBound(to: CChar.self) }
    var string: String { String(cString: cString) }

    static func ~= (pattern: StaticString, name: XMLName) -> Bool { name == pattern }

    /// ASCII-case-insensitive: elements of the iTunes namespace are written `itunes:Duration`,
    /// `itunes:EpisodeType`… as often as the specification's spelling.
    /// The first byte, folded, decides most mismatches without a call.
    @inline(__always)
    func caseless(_ other: StaticString) -> Bool {
        bytes.pointee | 0x20 == other.utf8Start.pointee | 0x20 && strcasecmp(other.cString, cString) == 0
    }

    /// The first byte decides most mismatches without a call (mappers try many names in turn).
    @inline(__always)
    static func == (name: XMLName, other: StaticString) -> Bool {
        name.bytes.pointee == other.utf8Start.pointee && strcmp(other.cString, name.cString) == 0
    }
}

/// The attributes of one start tag (libxml2's SAX2 array of 5 pointers per attribute).
struct XMLAttributes {
    let raw: UnsafeMutablePointer<UnsafePointer<UInt8>?>?
    let count: Int


    /// The value of `name` (in `namespace`), entity references decoded.
    func value(_ name: StaticString, in namespace: XMLNamespace = .none) -> String? {
        guard let raw else { return nil }
        for i in 0..<count {
            let a = raw + i * 5
            guard let local = a[0], XMLName(bytes: local) == name else { continue }
            if namespace == .none ? a[2] != nil : XMLNamespace(uri: a[2]) != namespace { continue }
            guard let start = a[3], let end = a[4], end >= start else { return "" }
            let count = end - start
            let text = String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)
            // Without entity substitution libxml2 leaves `&#38;` (for `&amp;`) and undeclared
            // references in attribute values: decode them once here.
            return memchr(start, Int32(UInt8(ascii: "&")), count) != nil ? TextCleaner.decodeEntities(text) : text
        }
        return nil
    }

    subscript(_ name: StaticString) -> String? { value(name) }
}
