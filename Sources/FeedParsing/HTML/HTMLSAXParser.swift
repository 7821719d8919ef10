import CLibXML2

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

    /// Parses `bytes` as UTF-8 HTML, reporting events to `handler`.
    static func parse(_ bytes: [UInt8], into handler: some HTMLSAXHandler) throws(FeedError) {
        guard !bytes.isEmpty else { throw .empty }
        guard bytes.count < Int(Int32.max) else { throw .tooLarge(limit: Int(Int32.max)) }
        initializeOnce()
        let box = Unmanaged.passRetained(HandlerBox(handler))
        defer { box.release() }
        var failed = false
        bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                guard let ctxt = htmlCreateMemoryParserCtxt(chars.baseAddress, Int32(chars.count)),
                      let sax = ctxt.pointee.sax else { failed = true; return }
                defer { htmlFreeParserCtxt(ctxt) }
                sax.pointee = makeSAXHandler()
                ctxt.pointee.userData = box.toOpaque()
                _ = htmlCtxtUseOptions(ctxt, options)
                // Without this libxml2 would guess Latin-1 for a page with no BOM.
                _ = xmlSwitchEncoding(ctxt, XML_CHAR_ENCODING_UTF8)
                _ = htmlParseDocument(ctxt)
                if let doc = ctxt.pointee.myDoc { xmlFreeDoc(doc); ctxt.pointee.myDoc = nil }
            }
        }
        if failed { throw .malformed("libxml2 could not create an HTML parser") }
    }

    private static let initialized: Bool = { xmlInitParser(); return true }()
    private static func initializeOnce() { _ = initialized }

    /// Holds the handler as a class existential so the C callbacks can reach it through `void *`.
    fileprivate final class HandlerBox {
        let handler: any HTMLSAXHandler
        init(_ handler: any HTMLSAXHandler) { self.handler = handler }
    }


    /// Plain functions (no captures, no actor isolation), as libxml2 calls them from C.
    private static func makeSAXHandler() -> htmlSAXHandler {
        var sax = htmlSAXHandler()
        sax.startElement = { ctx, name, attrs in
            guard let name else { return }
            saxHandler(ctx)?.startElement(HTMLName(name), HTMLAttributes(attrs))
        }
        sax.endElement = { ctx, name in
            guard let name else { return }
            saxHandler(ctx)?.endElement(HTMLName(name))
        }
        let text: charactersSAXFunc = { ctx, ch, len in
            guard let ch, len > 0 else { return }
            saxHandler(ctx)?.characters(UnsafeBufferPointer(start: ch, count: Int(len)))
        }
        sax.characters = text
        sax.cdataBlock = text
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

/// The handler behind libxml2's `userData`.
private func saxHandler(_ ctx: UnsafeMutableRawPointer?) -> (any HTMLSAXHandler)? {
    guard let ctx else { return nil }
    return Unmanaged<HTMLSAXParser.HandlerBox>.fromOpaque(ctx).takeUnretainedValue().handler
}
