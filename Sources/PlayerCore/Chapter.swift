/// A named part of an item: embedded in the file (ID3 CHAP, MP4, Ogg/Opus chapter comments) or
/// from a Podcasting 2.0 chapters file.
public struct Chapter: Sendable, Equatable, Codable {
    /// Seconds from the start of the item (the same scale as the player's position).
    public var start: Double
    /// Where it ends: the next chapter's start, or the item's end (nil when unknown).
    public var end: Double?
    public var title: String

    public init(start: Double, end: Double? = nil, title: String) {
        self.start = start
        self.end = end
        self.title = title
    }
}

/// Where each chapter comes from; the player prefers a podcast's chapters file to embedded ones.
public enum ChapterSource: String, Sendable, Equatable, Codable {
    case embedded, podcast
}

/// An item's chapters, sorted by start, with the lookups the player and `chapter next|prev|N` need.
public struct ChapterList: Sendable, Equatable {
    public private(set) var chapters: [Chapter]
    public var source: ChapterSource?

    /// A `prev` this close after a chapter's start goes to the chapter before (as players do);
    /// later, it goes back to the start of the current one.
    public static let previousGrace = 3.0

    public init(_ chapters: [Chapter] = [], source: ChapterSource? = nil, duration: Double? = nil) {
        let sorted = chapters.filter { $0.start.isFinite }.sorted { $0.start < $1.start }
        // Ends filled in from the next start, so a list always reads as consecutive parts.
        self.chapters = sorted.enumerated().map { i, c in
            var c = c
            c.start = max(0, c.start)
            let next = i + 1 < sorted.count ? sorted[i + 1].start : duration
            if let next, c.end == nil || (c.end ?? 0) > next { c.end = next }
            return c
        }
        self.source = chapters.isEmpty ? nil : source
    }

    public var isEmpty: Bool { chapters.isEmpty }

    /// The chapter playing at `position`: the last one started at or before it (nil before the first).
    public func index(at position: Double) -> Int? {
        // A hair of slack so a seek to a chapter's start counts as inside it.
        chapters.lastIndex { $0.start <= position + 0.05 }
    }

    public enum Jump: Sendable, Equatable {
        case next, previous
        /// 1-based, as listed.
        case number(Int)
    }

    /// The chapter a jump lands in, or nil when there is none (past the last, no such number).
    public func target(_ jump: Jump, from position: Double) -> Int? {
        guard !chapters.isEmpty else { return nil }
        let current = index(at: position)
        switch jump {
        case .number(let n): return chapters.indices.contains(n - 1) ? n - 1 : nil
        case .next:
            let next = (current ?? -1) + 1
            return next < chapters.count ? next : nil
        case .previous:
            guard let current else { return 0 }
            if position - chapters[current].start < Self.previousGrace { return max(0, current - 1) }
            return current
        }
    }
}
