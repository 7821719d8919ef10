import ArgumentParser
import FeedModel
import FeedParsing
import FeedText
import CLISupport
import HTTPFetch
#if canImport(Glibc)
import Glibc
#endif

/// `feedctl parse <FILE|URL>… [--json]`: prints the normalized feed of each source in turn.
struct ParseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parse",
        abstract: "Parse a feed file or URL and print the normalized feed.",
        discussion: "Reads RSS 0.9x/1.0/2.0, Atom 0.3/1.0, YouTube channel/playlist feeds and Rumble channel pages.")

    @Argument(help: "Feed files, or http(s) URLs to fetch. With several, one document each, in order.")
    var sources: [String]

    @Flag(help: "Print the JSON contract documented in docs/cli.md.")
    var json = false

    func run() throws {
        try ParseRun(sources: sources, json: json).run()
    }
}

/// What `feedctl parse` does, apart from reading its command line (`Feedctl.parseFeedCommand`
/// builds one straight from a plain command line).
struct ParseRun {
    let sources: [String]
    let json: Bool

    func run() throws {
        var failed = false
        var out = Output()   // one buffer for all sources: its capacity is reused
        for source in sources where !parse(source, into: &out) { failed = true }
        if failed { throw ExitCode.failure }
    }

    /// Prints one source's feed; false (with the error on stderr) when it could not be parsed.
    private func parse(_ source: String, into out: inout Output) -> Bool {
        do throws(FeedError) {
            if URLs.isHTTP(source) {
                let download: FetchResponse
                do {
                    download = try Fetcher.shared.fetchBlocking(FetchRequest(url: source, maxBytes: FeedLimits.maxBytes))
                } catch {
                    throw FeedError.io("can't fetch \(source): \(error.reason)")
                }
                let options = ParseOptions(documentURL: download.finalURL, httpCharset: download.charset)
                let feed = try FeedParser.parse(download.body, options: options)
                if json {
                    out.append(FeedJSON.document(feed))
                } else {
                    var lines = SummaryLines()
                    feed.items.forEach { lines.add($0) }
                    lines.print(feed, to: &out)
                }
            } else if json {
                var count = 0
                FeedJSON.begin(into: &out.buffer)
                let feed = try FeedParser.parseFile(atPath: source) { item in
                    FeedJSON.item(item, index: count, into: &out.buffer)
                    count += 1
                    out.flushIfFull()
                }
                FeedJSON.end(feed, into: &out.buffer)
            } else {
                var lines = SummaryLines()
                let feed = try FeedParser.parseFile(atPath: source) { lines.add($0) }
                lines.print(feed, to: &out)
            }
            out.flush()
            return true
        } catch {
            out.buffer.removeAll(keepingCapacity: true)   // no half document on stdout
            // I/O errors name their file or URL already; the others say what the document is.
            if case .io = error { printError(error.description) } else { printError("\(source): \(error.description)") }
            return false
        }
    }
}

/// The readable summary: a header, then one line per item (date, duration, title).
private struct SummaryLines {
    private var lines: [String] = []

    mutating func add(_ item: Item) {
        let date = item.published.map(Formats.day) ?? "          "
        let duration = item.duration.map { Formats.clock(Double($0)) } ?? "-"
        lines.append("\(date)  \(String(repeating: " ", count: max(0, 8 - duration.count)))\(duration)  \(Terminal.printable(item.title))")
    }

    func print(_ feed: Feed, to out: inout Output) {
        out.append("kind:  \(feed.kind.rawValue)\ntitle: \(Terminal.printable(feed.title))\nitems: \(lines.count)\n")
        for line in lines {
            out.append(line)
            out.append("\n")
            out.flushIfFull()
        }
    }
}

/// Buffered standard output (written with write(2) in 64 KiB blocks).
struct Output {
    var buffer: [UInt8] = []

    mutating func append(_ s: String) { buffer.append(contentsOf: s.utf8) }

    mutating func flushIfFull() { if buffer.count >= 1 << 16 { flush() } }

    mutating func flush() {
        var offset = 0
        buffer.withUnsafeBytes { raw in
            while offset < raw.count {
                let n = write(1, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                offset += n
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }
}

