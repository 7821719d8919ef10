import CLibXML2
import FeedModel

/// Receives the events of `HTMLSAXParser`. Called synchronously, on the caller's thread,
/// while `HTMLSAXParser.parse` runs; element names are lowercase, as libxml2 reports them.
protocol HTMLSAXHandler: AnyObject {
    func startElement(_ name: HTMLName, _ attributes: HTMLAttributes)
    func endElement(_ name: HTMLName)
    /// Text, and the raw content of `<script>`/`<style>` (entities not decoded there).
    func characters(_ bytes: UnsafeBufferPointer<UInt8>)
}

/// Streams an HTML document through libxml2's SAX interface: no tree is built, so memory stays
/// at the size of the input. Recovers from any error (real pages are full of them: SVG inside
/// HTML, `</span>` inside scripts) and never touches the network.
enum HTMLSAXParser {
    /// IGNORE_ENC: the pages read here (Rumble, YouTube) are UTF-8; a `<meta charset>` saying
    /// otherwise would make libxml2 convert (and garble) the real bytes, complaining on stderr.
    static let options = Int32(HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NOERROR.rawValue
        | HTML_PARSE_NOWARNING.rawValue | HTML_PARSE_NONET.rawValue | HTML_PARSE_IGNORE_ENC.rawValue)

    /// Parses `bytes` as UTF-8 HTML, reporting events to `handler`. Throws `.overLimit` when the
    /// page breaks a bound of `ParseLimits` (depth, attributes, elements, `timeBudget` CPU
    /// seconds): libxml2's HTML parser scans its element stack for every stray end tag, so deep
    /// nesting and stray end tags cost depth × tags (a 700 KB page took 11.5 s).
    static func parse(_ bytes: [UInt8], into handler: some HTMLSAXHandler,
                      timeBudget: Double = ParseLimits.timeBudget) throws(FeedError) {
        guard !bytes.isEmpty else { throw .empty }
        guard bytes.count < Int(Int32.max) else { throw .tooLarge(limit: Int(Int32.max)) }
        // One start tag with n attributes costs n² inside one libxml2 call: counted first
        // (unless the document is too short to hold that many: each takes two bytes or more).
        let attributesFine = bytes.count <= 2 * ParseLimits.maxAttributes
            || bytes.withUnsafeBufferPointer { AttributeScan.withinLimit($0, html: true) }
        guard attributesFine else { throw .overLimit(.attributes(ParseLimits.maxAttributes)) }
        initializeOnce()
        let limits = ParseGuard(budget: timeBudget, documentBytes: bytes.count)
        let handlerBox = HandlerBox(handler, limits: limits)
        let box = Unmanaged.passRetained(handlerBox)
        defer { box.release() }
        var failed = false
        bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                guard let ctxt = htmlCreateMemoryParserCtxt(chars.baseAddress, Int32(chars.count)),
                      let sax = ctxt.pointee.sax else { failed = true; return }
                defer { htmlFreeParserCtxt(ctxt) }
                sax.pointee = makeSAXHandler()
                ctxt.pointee.userData = box.toOpaque()
                handlerBox.ctxt = ctxt
                _ = htmlCtxtUseOptions(ctxt, options)
                // Without this libxml2 would guess Latin-1 for a page with no BOM.
                _ = xmlSwitchEncoding(ctxt, XML_CHAR_ENCODING_UTF8)
                _ = htmlParseDocument(ctxt)
                if let doc = ctxt.pointee.myDoc { xmlFreeDoc(doc); ctxt.pointee.myDoc = nil }
            }
        }
        if failed { throw .malformed("libxml2 could not create an HTML parser") }
        if let limit = limits.exceeded { throw .overLimit(limit) }
    }

    private static let initialized: Bool = { xmlInitParser(); return true }()
    private static func initializeOnce() { _ = initialized }

    /// Holds the handler as a class existential so the C callbacks can reach it through `void *`.
    fileprivate final class HandlerBox {
        let handler: any HTMLSAXHandler
        let limits: ParseGuard
        var ctxt: htmlParserCtxtPtr?
        var depth = 0
        private var stopped = false

        init(_ handler: any HTMLSAXHandler, limits: ParseGuard) {
            self.handler = handler
            self.limits = limits
        }

        /// False (and libxml2 stopped) once a bound is broken: no more events go to the handler.
        @inline(__always) func check(_ fine: Bool) -> Bool {
            if fine && !stopped { return true }
            if !stopped, let ctxt {
                stopped = true
                xmlStopParser(ctxt)
            }
            return false
        }
    }


    /// Plain functions (no captures, no actor isolation), as libxml2 calls them from C.
    private static func makeSAXHandler() -> htmlSAXHandler {
        var sax = htmlSAXHandler()
        sax.startElement = { ctx, name, attrs in
            guard let name, let box = handlerBox(ctx) else { return }
            box.depth += 1
            guard box.check(box.limits.element(depth: box.depth)) else { return }
            box.handler.startElement(HTMLName(name), HTMLAttributes(attrs))
        }
        sax.endElement = { ctx, name in
            guard let name, let box = handlerBox(ctx) else { return }
            box.depth -= 1
            guard box.check(box.limits.event()) else { return }
            box.handler.endElement(HTMLName(name))
        }
        let text: charactersSAXFunc = { ctx, ch, len in
            guard let ch, len > 0, let box = handlerBox(ctx), box.check(box.limits.event()) else { return }
            box.handler.characters(UnsafeBufferPointer(start: ch, count: Int(len)))
        }
        sax.characters = text
        sax.cdataBlock = text
        // Errors come through the structured channel (which libxml2 uses only for a handler
        // marked SAX2): a stray end tag calls nothing else, and its stack scan is the cost
        // that the clock must see.
        sax.initialized = UInt32(XML_SAX2_MAGIC)
        sax.serror = { ctx, _ in
            guard let box = handlerBox(ctx) else { return }
            _ = box.check(box.limits.event())
        }
        return sax
    }
}

/// An element name as libxml2 reports it (lowercase), compared without allocating.
struct HTMLName {
    let raw: UnsafePointer<xmlChar>
    init(_ raw: UnsafePointer<xmlChar>) { self.raw = raw }
    static func == (lhs: HTMLName, rhs: StaticString) -> Bool { cEquals(lhs.raw, rhs) }
    var string: String { String(cString: raw) }
}

/// The attributes of a start tag: a NULL-terminated array of name/value pairs owned by libxml2,
/// valid only during the callback. Lookups compare bytes in place.
struct HTMLAttributes {
    let raw: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?
    init(_ raw: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?) { self.raw = raw }

    /// The raw value of attribute `name` (an attribute without a value reads as "").
    func rawValue(_ name: StaticString) -> UnsafePointer<xmlChar>? {
        guard let raw else { return nil }
        var i = 0
        while let key = raw[i] {
            if cEquals(key, name) { return raw[i + 1] ?? emptyValue }
            i += 2
        }
        return nil
    }

    subscript(_ name: StaticString) -> String? { rawValue(name).map { String(cString: $0) } }

    /// Whether the space-separated `class` attribute holds `token`.
    func hasClass(_ token: StaticString) -> Bool {
        guard let value = rawValue("class") else { return false }
        let n = token.utf8CodeUnitCount
        let t = token.utf8Start
        var start = 0
        while true {
            while value[start] == 32 || value[start] == 9 || value[start] == 10 || value[start] == 13 { start += 1 }
            if value[start] == 0 { return false }
            var end = start
            while value[end] != 0 && value[end] != 32 && value[end] != 9 && value[end] != 10 && value[end] != 13 { end += 1 }
            if end - start == n && bytesEqual(value + start, t, n) { return true }
            start = end
        }
    }
}

private var emptyValue: UnsafePointer<xmlChar> { ("" as StaticString).utf8Start }

/// Whether the NUL-terminated `c` equals `s` (stops at the first difference, so never reads
/// past `c`'s terminator).
@inline(__always) private func cEquals(_ c: UnsafePointer<xmlChar>, _ s: StaticString) -> Bool {
    bytesEqual(c, s.utf8Start, s.utf8CodeUnitCount) && c[s.utf8CodeUnitCount] == 0
}

@inline(__always) private func bytesEqual(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ n: Int) -> Bool {
    for k in 0..<n where a[k] != b[k] { return false }
    return true
}

/// The box behind libxml2's `userData`.
private func handlerBox(_ ctx: UnsafeMutableRawPointer?) -> HTMLSAXParser.HandlerBox? {
    guard let ctx else { return nil }
    return Unmanaged<HTMLSAXParser.HandlerBox>.fromOpaque(ctx).takeUnretainedValue()
}
