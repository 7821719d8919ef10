import FeedModel

/// Turns a document (bytes or a file) into a `Feed`: detects what it is, then parses XML feeds
/// with the streaming SAX core and hands HTML pages to `RumbleParser`.
public enum FeedParser {
    /// 16 KiB pushes keep libxml2's input buffer below glibc's mmap threshold: with 64 KiB ones
    /// it grew past 128 KiB and was mapped and unmapped for every file (3,600 page faults over
    /// the 400-file bench set, 960 now). The sniffers read at most the first 2 KiB.
    static let chunkSize = 16 * 1024

    /// Detects the format (XML feed / HTML → RumbleParser / other → FeedError.notAFeed("a PNG image",
    /// "an HTML page without a feed", "a JSON document", …), FeedError.empty for 0 bytes) and parses.
    public static func parse(_ bytes: [UInt8], options: ParseOptions = .init()) throws(FeedError) -> Feed {
        guard !bytes.isEmpty else { throw .empty }
        guard bytes.count <= options.maxBytes else { throw .tooLarge(limit: options.maxBytes) }
        switch DocumentSniffer.sniff(bytes[...]) {
        case .other(let what): throw .notAFeed(what)
        case .html: return try RumbleParser.parse(bytes, documentURL: options.documentURL, timeBudget: options.timeBudget)
        case .xml: break
        }
        var notes: [String] = []
        let encoding = SourceEncoding.detect(head: bytes[...], httpCharset: options.httpCharset, fallback: { notes.append($0) }) {
            UTF8Validator.isValid(bytes)
        }
        let sink = ItemSink()
        let outcome = try parseXML(head: bytes[...], encoding: encoding, encodingNotes: notes, options: options,
                                   documentBytes: bytes.count, onItem: sink.add) { parser in
            bytes.withUnsafeBufferPointer { all in
                var offset = parser.consumedHead + Self.bomLength(all, encoding)
                while offset < all.count {
                    let end = min(all.count, offset + chunkSize)
                    parser.push(UnsafeBufferPointer(rebasing: all[offset..<end]))
                    offset = end
                }
            }
        }
        switch outcome {
        case .feed(var feed):
            feed.items = sink.items
            return feed
        case .html:
            return try RumbleParser.parse(bytes, documentURL: options.documentURL, timeBudget: options.timeBudget)
        }
    }

    /// Reads a fetched document once and says what it is: a feed (XML, or a Rumble listing
    /// page), a YouTube page naming its channel, or an HTML page linking its feed, in that
    /// order of preference (what `channel add` needs; each page is parsed once, within the
    /// same bounds as a feed). Throws as `parse` does, `.notAFeed` for a page that is none.
    public static func read(_ bytes: [UInt8], options: ParseOptions = .init()) throws(FeedError) -> DocumentContent {
        guard !bytes.isEmpty else { throw .empty }
        guard bytes.count <= options.maxBytes else { throw .tooLarge(limit: options.maxBytes) }
        if DocumentSniffer.sniff(bytes[...]) != .html {
            do {
                return .feed(try parse(bytes, options: options))
            } catch .notAFeed(let what) where DocumentSniffer.mentionsHTML(bytes[...]) {
                _ = what  // an XHTML page: read as HTML below
            }
        }
        return try DocumentContent.readPage(bytes, options: options)
    }

    /// Streams a file; items go to onItem in document order and are NOT kept (returned Feed.items is empty). Memory stays flat on a 50 MB feed.
    public static func parseFile(atPath path: String, options: ParseOptions = .init(), onItem: (Item) -> Void) throws(FeedError) -> Feed {
        let file = try InputFile(path: path)
        guard let size = file.size else {
            // A pipe or device: no size to check up front, no rewinding.
            let feed = try parse(try file.readAll(limit: options.maxBytes), options: options)
            return emit(feed, onItem)
        }
        guard size > 0 else { throw .empty }
        guard size <= options.maxBytes else { throw .tooLarge(limit: options.maxBytes) }

        var buffer = [UInt8](repeating: 0, count: chunkSize)
        let headCount = try file.read(into: &buffer)
        let head = buffer[0..<headCount]
        switch DocumentSniffer.sniff(head) {
        case .other(let what): throw .notAFeed(what)
        case .html: return try parseHTMLFile(file, options: options, onItem: onItem)
        case .xml: break
        }
        var readError: FeedError?
        var notes: [String] = []
        let encoding = SourceEncoding.detect(head: head, httpCharset: options.httpCharset, fallback: { notes.append($0) }) {
            // Only for documents labelled Latin-1: is the whole file valid UTF-8 after all?
            var validator = UTF8Validator()
            var chunk = [UInt8](repeating: 0, count: chunkSize)
            do throws(FeedError) {
                try file.rewind()
                while validator.valid {
                    let n = try file.read(into: &chunk)
                    if n == 0 { break }
                    chunk.withUnsafeBufferPointer { validator.feed(UnsafeBufferPointer(rebasing: $0[0..<n])) }
                }
            } catch { readError = error }
            return validator.isComplete
        }
        if let readError { throw readError }
        // The head is pushed from memory; reading goes on after it. A file shorter than one
        // chunk is read once, and the head's buffer is never written again (which would copy it).
        try file.seek(to: headCount)

        var failure: FeedError?
        let outcome = withoutActuallyEscaping(onItem) { (onItem: @escaping (Item) -> Void) -> Outcome? in
            do throws(FeedError) {
                return try parseXML(head: head, encoding: encoding, encodingNotes: notes, options: options, documentBytes: Int(size),
                                    onItem: onItem) { parser in
                    let skip = min(parser.consumedHead, headCount)
                    head.withUnsafeBufferPointer { b in
                        let start = skip + Self.bomLength(UnsafeBufferPointer(rebasing: b[skip...]), encoding)
                        parser.push(UnsafeBufferPointer(rebasing: b[start...]))
                    }
                    guard headCount == chunkSize else { return }   // `read` stopped at the end
                    var chunk = [UInt8](repeating: 0, count: chunkSize)
                    var total = headCount
                    while failure == nil {
                        let n: Int
                        do throws(FeedError) { n = try file.read(into: &chunk) } catch { failure = error; break }
                        if n == 0 { break }
                        total += n
                        if total > options.maxBytes { failure = .tooLarge(limit: options.maxBytes); break }
                        chunk.withUnsafeBufferPointer { parser.push(UnsafeBufferPointer(rebasing: $0[0..<n])) }
                    }
                }
            } catch {
                failure = error
                return nil
            }
        }
        if let failure { throw failure }
        switch outcome {
        case .feed(let feed)?: return feed
        case .html?, nil:
            try file.rewind()
            return try parseHTMLFile(file, options: options, onItem: onItem)
        }
    }

    public static func parseFile(atPath path: String, options: ParseOptions = .init()) throws(FeedError) -> Feed {
        let file = try InputFile(path: path)
        if let size = file.size {
            guard size > 0 else { throw .empty }
            guard size <= options.maxBytes else { throw .tooLarge(limit: options.maxBytes) }
        }
        return try parse(try file.readAll(limit: options.maxBytes), options: options)
    }

    // MARK: -

    private enum Outcome {
        case feed(Feed)
        /// The root element was `<html>`: an XHTML page, for the HTML parser.
        case html
    }

    private final class ItemSink {
        var items: [Item] = []
        func add(_ item: Item) { items.append(item) }
    }

    private static func parseHTMLFile(_ file: InputFile, options: ParseOptions, onItem: (Item) -> Void) throws(FeedError) -> Feed {
        try file.rewind()
        let feed = try RumbleParser.parse(try file.readAll(limit: options.maxBytes), documentURL: options.documentURL,
                                          timeBudget: options.timeBudget)
        return emit(feed, onItem)
    }

    private static func emit(_ feed: Feed, _ onItem: (Item) -> Void) -> Feed {
        var feed = feed
        feed.items.forEach(onItem)
        feed.items = []
        return feed
    }

    private static func bomLength(_ b: UnsafeBufferPointer<UInt8>, _ encoding: SourceEncoding) -> Int {
        guard encoding == .utf8, b.count >= 3, b[0] == 0xEF, b[1] == 0xBB, b[2] == 0xBF else { return 0 }
        return 3
    }

    /// Runs the SAX core over the chunks `feed` pushes and builds the feed's channel fields.
    private static func parseXML(head: ArraySlice<UInt8>, encoding: SourceEncoding, encodingNotes: [String], options: ParseOptions,
                                 documentBytes: Int, onItem: @escaping (Item) -> Void,
                                 feed: (XMLStreamParser) -> Void) throws(FeedError) -> Outcome {
        let builder = FeedBuilder(onItem: onItem)
        for note in encodingNotes { builder.warnings.add(note) }
        let limits = ParseGuard(budget: options.timeBudget, documentBytes: documentBytes)
        let parser = try XMLStreamParser(handler: builder, documentURL: options.documentURL, encoding: encoding, firstBytes: head,
                                         limits: limits)
        builder.stop = { [unowned parser] in parser.stop() }
        feed(parser)
        parser.finish()
        if let limit = parser.exceeded { throw .overLimit(limit) }
        builder.finishDocument()
        return try withExtendedLifetime(builder) { () throws(FeedError) -> Outcome in
            switch builder.format {
            case .html:
                return .html
            case .undetermined where DocumentSniffer.mentionsHTML(head):
                return .html
            case .other where DocumentSniffer.mentionsHTML(head):
                return .html
            case .undetermined:
                throw .malformed(parser.firstError ?? "no XML element found")
            case .other(let root):
                throw .notAFeed("an XML document whose root element is <\(root)>")
            case .rss, .rdf, .atom:
                let declared = parser.declaredNamespaces
                let kind: Feed.Kind
                if builder.format == .atom && (builder.sawYouTube || declared & XMLNamespace.yt.bit != 0) {
                    kind = .youtube
                } else if builder.sawITunes || declared & XMLNamespace.itunes.bit != 0 || builder.hasMediaEnclosure {
                    kind = .podcast
                } else {
                    kind = builder.format == .atom ? .atom : .rss
                }
                var normalized = ItemNormalizer.feed(from: builder.channel, kind: kind)
                normalized.warnings = builder.warnings.lines
                return .feed(normalized)
            }
        }
    }
}
