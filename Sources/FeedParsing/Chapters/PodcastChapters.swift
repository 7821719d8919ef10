import Foundation

/// One chapter of a Podcasting 2.0 chapters file.
public struct PodcastChapter: Sendable, Equatable {
    /// Seconds from the start of the episode.
    public var startTime: Double
    public var endTime: Double?
    public var title: String
    /// The chapter's web page, when the file gives an `http(s)` one.
    public var url: String?

    public init(startTime: Double, endTime: Double? = nil, title: String, url: String? = nil) {
        self.startTime = startTime
        self.endTime = endTime
        self.title = title
        self.url = url
    }
}

/// Parses `podcast:chapters` JSON (`{"version":"1.2.0","chapters":[{"startTime":0,"title":"Intro"},…]}`).
/// The file is untrusted: odd entries are dropped rather than failing the whole list, chapters
/// come back sorted by start, and a chapter marked `"toc": false` (not meant as a jump target) is left out.
public enum PodcastChapters {
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public var description: String
    }

    /// Limits against absurd files: chapter count and title length.
    static let maxChapters = 5000
    static let maxTitle = 300
    static let maxURL = 2048

    private struct File: Decodable {
        var chapters: [Entry]
    }

    private struct Entry: Decodable {
        var startTime: Double?
        var endTime: Double?
        var title: String?
        var url: String?
        var toc: Bool?

        enum CodingKeys: String, CodingKey { case startTime, endTime, title, url, toc }

        // Lenient: a field of the wrong type is as good as missing (publishers write "12.5").
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            startTime = Self.number(c, .startTime)
            endTime = Self.number(c, .endTime)
            title = try? c.decodeIfPresent(String.self, forKey: .title)
            url = try? c.decodeIfPresent(String.self, forKey: .url)
            toc = try? c.decodeIfPresent(Bool.self, forKey: .toc)
        }

        private static func number(_ c: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) -> Double? {
            if let d = try? c.decodeIfPresent(Double.self, forKey: key) { return d }
            if let s = try? c.decodeIfPresent(String.self, forKey: key) { return Double(s) }
            return nil
        }
    }

    public static func parse(_ bytes: [UInt8]) throws(ParseError) -> [PodcastChapter] {
        let file: File
        do {
            file = try JSONDecoder().decode(File.self, from: Data(bytes))
        } catch {
            throw ParseError(description: "not a podcast chapters file (JSON with a \"chapters\" array)")
        }
        var out: [PodcastChapter] = []
        for (i, entry) in file.chapters.prefix(maxChapters).enumerated() {
            guard entry.toc != false, let start = entry.startTime, start.isFinite, start >= 0 else { continue }
            let end = entry.endTime.flatMap { $0.isFinite && $0 > start ? $0 : nil }
            let cleaned = (entry.title ?? "").split(whereSeparator: \.isWhitespace).joined(separator: " ")
            let title = cleaned.isEmpty ? "Chapter \(i + 1)" : String(cleaned.prefix(maxTitle))
            out.append(PodcastChapter(startTime: start, endTime: end, title: title, url: webURL(entry.url)))
        }
        return out.sorted { $0.startTime < $1.startTime }
    }

    /// An `http:` or `https:` link of sane length without spaces, else nil (the file is the feed's text).
    static func webURL(_ text: String?) -> String? {
        guard let text, text.utf8.count <= maxURL, !text.contains(where: { $0.isWhitespace || $0.isNewline }) else { return nil }
        let lower = text.lowercased()
        return lower.hasPrefix("https://") || lower.hasPrefix("http://") ? text : nil
    }
}
