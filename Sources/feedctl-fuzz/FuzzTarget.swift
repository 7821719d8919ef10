import FeedModel
import FeedParsing
#if canImport(Glibc)
import Glibc
#endif

/// The parsers' fuzz target (issue 14, "Keep it true"): every input goes through what a fetched
/// document goes through — `FeedParser.read` (sniffing, encodings, the XML core, every mapper,
/// the HTML page readers, the bounds of `ParseLimits`) — and through OPML, chapters JSON and the
/// show-notes sanitizer (the whole input as notes: its output must stay within its bound, and its
/// fast path must agree with its libxml2 path; each parsed item's stored notes within their bound,
/// and sanitized as the item route does).
/// Any outcome is fine except a crash, a sanitizer report or a hang (libFuzzer's -timeout).
///
/// Built two ways. `swift build` makes a replay tool: `feedctl-fuzz FILE…` runs each file once
/// (reproduce a crash libFuzzer saved). `scripts/fuzz.sh` compiles it with `-D FUZZING` and
/// `-sanitize=fuzzer,address`, where libFuzzer's own main drives `LLVMFuzzerTestOneInput`.
enum FuzzTarget {
    /// A tight budget: a slow input is reported by the bound, not by libFuzzer's timeout.
    static let options = ParseOptions(documentURL: "https://fuzz.example/feed.xml", timeBudget: 2)

    static func run(_ bytes: [UInt8]) {
        if case .feed(let feed)? = try? FeedParser.read(bytes, options: options) {
            // What the library stores (the feed's markup, bounded) and what showing an item
            // makes of it.
            for item in feed.items {
                guard let markup = item.notesMarkup else { continue }
                precondition(markup.utf8.count <= FieldLimits.maxNotesHTMLBytes, "stored notes over FieldLimits.maxNotesHTMLBytes")
                let shown = NotesSanitizer.sanitize(markup, base: item.url ?? options.documentURL)
                precondition((shown?.utf8.count ?? 0) <= FieldLimits.maxNotesHTMLBytes, "shown notes over FieldLimits.maxNotesHTMLBytes")
            }
        }
        _ = try? OPML.parse(bytes)
        _ = try? PodcastChapters.parse(bytes)
        let base = "https://fuzz.example/episode"
        let notes = NotesSanitizer.sanitize(bytes: bytes, base: base)
        // A broken bound is a finding: libFuzzer reports the trap with its input.
        precondition((notes?.utf8.count ?? 0) <= FieldLimits.maxNotesHTMLBytes, "notes over FieldLimits.maxNotesHTMLBytes")
        // The fast path must read what it accepts as libxml2's path does (on valid UTF-8: it
        // only ever reads a String's bytes).
        if String(validating: bytes, as: UTF8.self) != nil,
           let simple = bytes.withUnsafeBufferPointer({ SimpleNotes.sanitize($0, base: base) }) {
            precondition(simple == notes, "SimpleNotes and libxml2 disagree")
        }
    }
}

#if FUZZING
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzTarget.run(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}
#else
@main
struct FuzzReplay {
    static func main() {
        var status: Int32 = 0
        for path in CommandLine.arguments.dropFirst() {
            guard let bytes = readFile(path) else {
                print("feedctl-fuzz: cannot read \(path)")
                status = 1
                continue
            }
            FuzzTarget.run(bytes)
            print("\(path): ok (\(bytes.count) bytes)")
        }
        exit(status)
    }

    static func readFile(_ path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            if n == 0 { break }
            bytes += chunk[0..<n]
            if bytes.count > FeedLimits.maxBytes { return nil }
        }
        return bytes
    }
}
#endif
