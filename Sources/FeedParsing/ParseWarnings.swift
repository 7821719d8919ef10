import FeedModel

/// The warnings of one parse (`Feed.warnings`), in document order: the first
/// `FeedWarnings.maxKept` distinct lines, then only a count. A feed broken on every line makes
/// libxml2 report an error per element; past the cap each costs an increment, not a String.
struct ParseWarnings {
    private var kept: [String] = []
    private var dropped = 0

    mutating func add(_ line: @autoclosure () -> String) {
        guard kept.count < FeedWarnings.maxKept else {
            dropped += 1
            return
        }
        // One line each: libxml2's messages end with a newline, and a quoted title may hold one.
        let text = ItemNormalizer.line(TextCleaner.collapse(line())) ?? ""
        guard !text.isEmpty, !kept.contains(text) else { return }   // a repeat says nothing new
        kept.append(text)
    }

    var lines: [String] { FeedWarnings.capped(kept, dropped: dropped) }
}
