import FeedModel

/// What a person typed, as FTS5 queries that cannot be syntax errors: the text is cut into
/// words where the index's tokenizer would cut it (anything but letters, digits and combining
/// marks), and each word is quoted, so FTS5 operators (`AND`, `OR`, `NOT`, `NEAR`, `*`, `^`,
/// `-`, `:`, parentheses, quotes) are only ever words or separators. Words are joined with
/// spaces (FTS5's implicit AND); per `SearchRule.prefixMatching`, the last one matches as a prefix.
package enum SearchSyntax {
    /// The query for the whole text; nil when it holds no word at all.
    package static func match(_ text: String) -> String? {
        let phrases = phrases(text)
        return phrases.isEmpty ? nil : phrases.joined(separator: " ")
    }

    /// Each word as its own FTS5 query (the last one as a prefix), in order.
    static func phrases(_ text: String) -> [String] {
        let words = words(text)
        // A word holds no `"` (not a letter), so quoting needs no escaping.
        return words.enumerated().map { index, word in
            "\"\(word)\"" + (SearchRule.prefixMatching && index == words.count - 1 ? "*" : "")
        }
    }

    static func words(_ text: String) -> [String] {
        var words: [String] = []
        var word = ""
        for scalar in text.unicodeScalars {
            if isWordScalar(scalar) {
                word.unicodeScalars.append(scalar)
            } else if !word.isEmpty {
                words.append(word)
                word = ""
            }
        }
        if !word.isEmpty { words.append(word) }
        return words
    }

    /// unicode61's token characters: letters, numbers, and marks (so "é" typed as e + U+0301
    /// stays one word, which the tokenizer folds to "e").
    private static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
             .decimalNumber, .letterNumber, .otherNumber, .nonspacingMark, .spacingMark, .enclosingMark:
            return true
        default:
            return false
        }
    }
}
