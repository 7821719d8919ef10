import CLibXML2
import FeedModel
import FeedText
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a format mapper sees of one start tag.
struct XMLElement {
    let namespace: XMLNamespace
    let name: XMLName
    let attributes: XMLAttributes
    /// The root element is at depth 0.
    let depth: Int
    /// Only valid during `FeedBuilder.start`, while the parser calls it.
    fileprivate unowned(unsafe) let parser: XMLStreamParser

    /// The `xml:base` in effect (resolved), else the document's URL. Looked up on demand: few
    /// elements need it, and carrying the string would cost a retain and a release on all.
    var base: String? { parser.currentBase }
}

/// The one SAX2 core: a libxml2 push parser fed in chunks, keeping only an element depth, the
/// `xml:base` stack and the text of the element being captured. Never builds a tree.
///
/// Options: RECOVER | NONET, never NOENT/DTDLOAD/HUGE, so external entities are not loaded (an
/// entity loader that loads nothing backs that up) and libxml2's amplification checks stop
/// billion-laughs documents. One instance per document, used from one thread.
final class XMLStreamParser {
    private let ctxt: xmlParserCtxtPtr
    /// Receives the element stream (see `FeedBuilder.start`/`end`). The builder outlives the
    /// parser (`FeedParser.parseXML` keeps it); calling it unmanaged spares a retain and a
    /// release on every start and end tag (an existential or unowned reference costs both).
    private let handler: Unmanaged<FeedBuilder>
    private let documentURL: String?
    private let encoding: SourceEncoding

    // The per-event state is touched only from this parser's own callbacks, on one thread and
    // never through overlapping inout accesses: the runtime exclusivity checks (a thread-local
    // lookup per access, several per element) are skipped for these few properties.
    @exclusivity(unchecked) private(set) var depth = 0
    @exclusivity(unchecked) private var captureDepth = -1
    /// The captured element's text so far.
    @exclusivity(unchecked) private var text = TextBuffer()
    @exclusivity(unchecked) private var bases: [(depth: Int, url: String)] = []
    private var transcoded: [UInt8] = []
    /// Namespaces declared anywhere (bit per `XMLNamespace`).
    private(set) var declaredNamespaces: UInt32 = 0
    private(set) var firstError: String?
    private(set) var errorCount = 0
    private var stopped = false
    /// The work bounds (`ParseLimits`) and the attribute count ahead of libxml2.
    private let limits: ParseGuard
    private var attributeScan = AttributeScan(html: false)
    private var narrowed: [UInt8] = []
    /// The bound the document broke, if any (parsing stopped there).
    var exceeded: ParseLimit? { limits.exceeded }
    /// libxml2 interns namespace URIs: one pointer per URI, classified once.
    @exclusivity(unchecked) private var uriCache: [(uri: UnsafePointer<UInt8>, ns: XMLNamespace)] = []

    /// Text kept per captured element; beyond it is dropped (a description is not 4 MB).
    private static let textCap = 4 << 20
    private static let options = Int32(XML_PARSE_RECOVER.rawValue | XML_PARSE_NONET.rawValue)

    init(handler: FeedBuilder, documentURL: String?, encoding: SourceEncoding, firstBytes: ArraySlice<UInt8>,
         limits: ParseGuard) throws(FeedError) {
        self.limits = limits
        Self.installEntityLoader
        // Errors without a parser context (encoding conversion) would go to libxml2's default
        // handlers, which print to stderr; this thread's handlers drop them instead (errors
        // with a context still reach `serror` below). The state is per thread in libxml2.
        xmlSetStructuredErrorFunc(nil) { _, _ in }
        feedctl_xmlSilenceGenericErrors()
        self.handler = .passUnretained(handler)
        self.documentURL = documentURL
        self.encoding = encoding
        var sax = Self.makeHandler()
        // UTF-16 detection needs the first 4 bytes at creation; other encodings are set below.
        let head = encoding == .libxmlDetects ? Array(firstBytes.prefix(4)) : []
        let created: xmlParserCtxtPtr? = head.withUnsafeBufferPointer { h in
            h.withMemoryRebound(to: CChar.self) { c in
                xmlCreatePushParserCtxt(&sax, nil, c.baseAddress, Int32(c.count), documentURL)
            }
        }
        guard let created else { throw .malformed("libxml2 could not create a parser") }
        ctxt = created
        var options = Self.options
        if encoding != .libxmlDetects { options |= Int32(XML_PARSE_IGNORE_ENC.rawValue) }
        xmlCtxtUseOptions(ctxt, options)
        var unknownEncoding: String?
        if case .named(let name) = encoding {
            if let h = xmlFindCharEncodingHandler(name) { xmlSwitchToEncoding(ctxt, h) } else { unknownEncoding = name }
        }
        ctxt.pointee._private = Unmanaged.passUnretained(self).toOpaque()
        if let unknownEncoding { warn("unknown encoding \(unknownEncoding): read as UTF-8") }
        consumedHead = head.count
    }

    /// Bytes of the first chunk already handed to libxml2 at creation.
    private(set) var consumedHead = 0

    deinit {
        if let doc = ctxt.pointee.myDoc { xmlFreeDoc(doc) }
        ctxt.pointee.myDoc = nil
        xmlFreeParserCtxt(ctxt)
    }

    /// Feeds the next chunk (in the document's own encoding).
    func push(_ chunk: UnsafeBufferPointer<UInt8>, last: Bool = false) {
        guard !stopped else { return }
        // Between chunks: the CPU budget, and no tag with too many attributes goes in.
        guard limits.inTime() else { return stop() }
        guard scanAttributes(chunk) else {
            _ = limits.fail(.attributes(ParseLimits.maxAttributes))
            return stop()
        }
        if encoding == .windows1252 {
            Windows1252.transcode(chunk, into: &transcoded)
            let utf8 = transcoded
            utf8.withUnsafeBufferPointer { parse($0, last: last) }
        } else {
            parse(chunk, last: last)
        }
    }

    /// UTF-16 and UTF-32 reach libxml2 as they are: the scan sees their ASCII through the NULs
    /// dropped (a stray `<` from a CJK unit only ever counts more).
    private func scanAttributes(_ chunk: UnsafeBufferPointer<UInt8>) -> Bool {
        guard encoding == .libxmlDetects else { return attributeScan.feed(chunk) }
        narrowed.removeAll(keepingCapacity: true)
        for byte in chunk where byte != 0 { narrowed.append(byte) }
        return narrowed.withUnsafeBufferPointer { attributeScan.feed($0) }
    }

    private func parse(_ bytes: UnsafeBufferPointer<UInt8>, last: Bool) {
        bytes.withMemoryRebound(to: CChar.self) { c in
            _ = xmlParseChunk(ctxt, c.baseAddress, Int32(c.count), last ? 1 : 0)
        }
    }

    func finish() {
        guard !stopped else { return }
        _ = xmlParseChunk(ctxt, nil, 0, 1)
    }

    /// Stops parsing (e.g. the root is not a feed).
    func stop() {
        stopped = true
        xmlStopParser(ctxt)
    }

    // MARK: Events from the C callbacks

    fileprivate func startElement(_ local: UnsafePointer<UInt8>, _ prefix: UnsafePointer<UInt8>?, _ uri: UnsafePointer<UInt8>?,
                                  _ nbNamespaces: Int32, _ namespaces: UnsafeMutablePointer<UnsafePointer<UInt8>?>?,
                                  _ nbAttributes: Int32, _ attributes: UnsafeMutablePointer<UnsafePointer<UInt8>?>?) {
        let level = depth
        depth += 1
        guard limits.element(depth: depth) else { return stop() }
        if captureDepth >= 0 { return }
        if level == 0 { adoptRootNamespaces(local, uri, nbNamespaces, namespaces) }
        if nbNamespaces > 0, let namespaces {
            for i in 0..<Int(nbNamespaces) { declaredNamespaces |= namespace(namespaces[i * 2 + 1]).bit }
        }
        let attrs = XMLAttributes(raw: attributes, count: Int(nbAttributes))
        if nbAttributes > 0, let base = attrs.value("base", in: .xml) {
            bases.append((level, URLs.resolve(base, against: bases.last?.url ?? documentURL)))
        }
        // A prefix without a namespace is one the document never declared (libxml2 recovers).
        let ns = uri != nil || prefix == nil ? namespace(uri) : undeclared(prefix.unsafelyUnwrapped, local)
        let element = XMLElement(namespace: ns, name: XMLName(bytes: local), attributes: attrs,
                                 depth: level, parser: self)
        if handler._withUnsafeGuaranteedRef({ $0.start(element) }) {
            captureDepth = level
            text.count = 0
            receiveText(true)
        }
    }

    fileprivate func endElement() {
        if !limits.event() { stop() }
        depth -= 1
        let level = depth
        var captured = false
        if captureDepth >= 0 {
            guard captureDepth == level else { return }
            captured = true
            captureDepth = -1
            receiveText(false)
        }
        let bytes = text.bytes
        handler._withUnsafeGuaranteedRef { $0.end(depth: level, text: captured ? bytes : nil) }
        if !bases.isEmpty, bases[bases.count - 1].depth == level { bases.removeLast() }
    }

    fileprivate var currentBase: String? { bases.last?.url ?? documentURL }

    private func namespace(_ uri: UnsafePointer<UInt8>?) -> XMLNamespace {
        guard let uri else { return .none }
        for entry in uriCache where entry.uri == uri { return entry.ns }
        var ns = XMLNamespace(uri: uri)
        if ns == .other, !adopted.isEmpty {
            let c = UnsafeRawPointer(uri).assumingMemoryBound(to: CChar.self)
            for entry in adopted where strcmp(entry.uri, c) == 0 { ns = entry.ns }
        }
        if uriCache.count < 32 { uriCache.append((uri, ns)) }
        return ns
    }

    /// Namespaces read as another (`adoptRootNamespaces`), compared by text where a URI's
    /// pointer is not the cached one.
    private var adopted: [(uri: [CChar], ns: XMLNamespace)] = []
    /// Undeclared prefixes met so far, each reported once.
    private var undeclaredPrefixes: [(prefix: String, ns: XMLNamespace)] = []

    /// A root named as a feed (`rss`, `channel`, `feed`, `RDF`) is read as that format whatever
    /// its namespace (as feedparser does): old feeds put RSS in Userland's
    /// `http://backend.userland.com/rss2`, Atom drafts had their own URIs. Such an unknown root
    /// namespace is read as no namespace (RSS and Atom elements are matched without one), an
    /// RDF root's as RDF's; and the default namespace an RDF root declares for its channel and
    /// items, when unknown, as RSS 1.0's.
    private func adoptRootNamespaces(_ local: UnsafePointer<UInt8>, _ uri: UnsafePointer<UInt8>?, _ nbNamespaces: Int32,
                                     _ namespaces: UnsafeMutablePointer<UnsafePointer<UInt8>?>?) {
        let name = XMLName(bytes: local)
        let isRDF = name == "RDF"
        guard isRDF || name == "rss" || name == "channel" || name == "feed" else { return }
        func adopt(_ u: UnsafePointer<UInt8>, as ns: XMLNamespace, _ what: String, _ format: String) {
            guard XMLNamespace(uri: u) == .other else { return }
            let c = UnsafeRawPointer(u).assumingMemoryBound(to: CChar.self)
            adopted.append((Array(UnsafeBufferPointer(start: c, count: strlen(c) + 1)), ns))
            warn("\(what) in the unknown namespace \(String(cString: c)): read as \(format)")
        }
        let format = isRDF ? "RSS 1.0 (RDF)" : name == "feed" ? "Atom" : "RSS"
        if let uri { adopt(uri, as: isRDF ? .rdf : .none, "the root element <\(name.string)> is", format) }
        if isRDF, nbNamespaces > 0, let namespaces {
            for i in 0..<Int(nbNamespaces) where namespaces[i * 2] == nil {
                if let u = namespaces[i * 2 + 1], u != uri { adopt(u, as: .rss10, "the RDF channel and items are", "RSS 1.0") }
            }
        }
    }

    /// The namespace of an element whose prefix was never declared: the customary one for
    /// well-known prefixes (`itunes:`, `media:`, `dc:`…), else one no mapper reads. Said once per prefix.
    private func undeclared(_ prefix: UnsafePointer<UInt8>, _ local: UnsafePointer<UInt8>) -> XMLNamespace {
        let text = String(cString: UnsafeRawPointer(prefix).assumingMemoryBound(to: CChar.self))
        if let seen = undeclaredPrefixes.first(where: { $0.prefix == text }) { return seen.ns }
        let ns = XMLNamespace.customary(prefix: prefix) ?? .other
        undeclaredPrefixes.append((text, ns))
        let element = "<\(text):\(XMLName(bytes: local).string)>"
        if let uri = ns.uri {
            warn("undeclared namespace prefix \(text) (first on \(element)): read as \(uri)")
        } else {
            warn("undeclared namespace prefix \(text) (first on \(element)): its elements are ignored")
        }
        return ns
    }

    /// A recovery worth telling the user about (`Feed.warnings`).
    private func warn(_ line: @autoclosure () -> String) {
        handler._withUnsafeGuaranteedRef { $0.warnings.add(line()) }
    }

    fileprivate func characters(_ p: UnsafePointer<UInt8>, _ n: Int32) {
        if !limits.event() { return stop() }
        guard captureDepth >= 0, text.count < Self.textCap else { return }
        text.append(p, Int(n))
    }

    /// Text callbacks are installed only while an element is captured: libxml2 skips a NULL
    /// callback, so the whitespace and content no mapper wants never cross into Swift.
    /// `ignorableWhitespace` stays equal to `characters`, which keeps libxml2 from testing
    /// text for blankness.
    private func receiveText(_ on: Bool) {
        guard let sax = ctxt.pointee.sax else { return }
        let callback = on ? Self.charactersCallback : nil
        sax.pointee.characters = callback
        sax.pointee.cdataBlock = callback
        sax.pointee.ignorableWhitespace = callback
    }

    fileprivate func error(_ message: String) {
        if !limits.event() { stop() }
        errorCount += 1
        if firstError == nil { firstError = message }
        warn(message)
    }

    // MARK: C glue

    /// Runs `body` on the parser behind a libxml2 context, without retaining it: the parser
    /// owns the context, so it is alive for as long as libxml2 can call back.
    @inline(__always)
    fileprivate static func with(_ ctx: UnsafeMutableRawPointer?, _ body: (XMLStreamParser) -> Void) {
        guard let ctx, let me = ctx.assumingMemoryBound(to: xmlParserCtxt.self).pointee._private else { return }
        Unmanaged<XMLStreamParser>.fromOpaque(me)._withUnsafeGuaranteedRef(body)
    }

    fileprivate static func from(_ ctx: UnsafeMutableRawPointer?) -> XMLStreamParser? {
        guard let ctx, let me = ctx.assumingMemoryBound(to: xmlParserCtxt.self).pointee._private else { return nil }
        return Unmanaged<XMLStreamParser>.fromOpaque(me).takeUnretainedValue()
    }

    /// libxml2 is process-global here: no external entity, DTD or XInclude is ever loaded.
    private static let installEntityLoader: Void = {
        xmlInitParser()
        xmlSetExternalEntityLoader { _, _, _ in nil }
    }()

    private static let charactersCallback: charactersSAXFunc = { ctx, p, n in
        guard let p, n > 0 else { return }
        XMLStreamParser.with(ctx) { $0.characters(p, n) }
    }

    private static func makeHandler() -> xmlSAXHandler {
        var sax = xmlSAXHandler()
        // SAX2 defaults keep the internal subset (entity declarations) in ctxt->myDoc; the
        // element and text callbacks are ours, so no tree is ever built.
        xmlSAXVersion(&sax, 2)
        sax.startElementNs = { ctx, local, prefix, uri, nbNs, ns, nbAttrs, _, attrs in
            guard let local else { return }
            XMLStreamParser.with(ctx) { $0.startElement(local, prefix, uri, nbNs, ns, nbAttrs, attrs) }
        }
        sax.endElementNs = { ctx, local, _, _ in
            guard local != nil else { return }
            XMLStreamParser.with(ctx) { $0.endElement() }
        }
        // Text callbacks start off: `receiveText` installs them while an element is captured.
        sax.characters = nil
        sax.cdataBlock = nil
        sax.ignorableWhitespace = nil
        sax.getEntity = { ctx, name in
            guard let ctx, let name else { return nil }
            let ctxt = ctx.assumingMemoryBound(to: xmlParserCtxt.self)
            guard let entity = XMLStreamParser.entity(ctxt, name) else { return nil }
            // Each reference expands the entity's text again (libxml2 2.9.14 re-parses it per
            // reference in SAX mode and only stops nested, billion-laughs growth): count what
            // the references add up to, so flat amplification stops at its bound too.
            var allowed = true
            XMLStreamParser.with(ctx) { me in
                if !me.limits.expand(Int(entity.pointee.length)) {
                    allowed = false
                    me.stop()
                }
            }
            return allowed ? entity : nil
        }
        // Entity content arrives as characters; a reference callback would report it twice.
        sax.reference = nil
        sax.comment = nil
        sax.processingInstruction = nil
        sax.error = nil
        sax.warning = nil
        sax.serror = { ctx, err in
            guard let err, let me = XMLStreamParser.from(ctx) else { return }
            let e = err.pointee
            guard e.level == XML_ERR_FATAL || e.level == XML_ERR_ERROR else { return }
            let message = e.message.map { String(cString: $0).trimmingWhitespace() } ?? "error \(e.code)"
            // An element's undeclared prefix is said once per prefix, with what it was read as
            // (`undeclared`), rather than once per element here.
            if e.code == Int32(XML_NS_ERR_UNDEFINED_NAMESPACE.rawValue), !message.contains(" for ") { return }
            me.error("line \(e.line): \(message)")
        }
        return sax
    }

    /// Declared entities first; then the HTML named entities feeds use without declaring them
    /// (`&nbsp;`, `&eacute;`), added to the document's internal subset on first use.
    private static func entity(_ ctxt: xmlParserCtxtPtr, _ name: UnsafePointer<UInt8>) -> xmlEntityPtr? {
        if let declared = xmlSAX2GetEntity(ctxt, name) { return declared }
        guard let doc = ctxt.pointee.myDoc, let html = htmlEntityLookup(name),
              let scalar = Unicode.Scalar(html.pointee.value) else { return nil }
        if doc.pointee.intSubset == nil { _ = xmlCreateIntSubset(doc, "html", nil, nil) }
        var utf8 = Array(String(Character(scalar)).utf8)
        utf8.append(0)
        return xmlAddDocEntity(doc, name, Int32(XML_INTERNAL_GENERAL_ENTITY.rawValue), nil, nil, utf8)
    }
}

/// The bytes of the element being captured: one malloc'd block reused for the whole document,
/// appended with a bounds check and a memcpy (an Array append also checks uniqueness and goes
/// through generic code, per libxml2 text callback).
private struct TextBuffer: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    var count = 0

    init() {
        capacity = 1024
        base = .allocate(capacity: capacity)
    }

    deinit { base.deallocate() }

    mutating func append(_ p: UnsafePointer<UInt8>, _ n: Int) {
        if count + n > capacity {
            let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: max(capacity * 2, count + n))
            grown.update(from: base, count: count)
            base.deallocate()
            base = grown
            capacity = max(capacity * 2, count + n)
        }
        (base + count).update(from: p, count: n)
        count += n
    }

    /// The bytes so far; valid until the next append.
    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }
}
