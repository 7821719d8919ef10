import FeedModel

/// What a person typed, as an FTS5 query that cannot be a syntax error: the text is cut into
/// words where the index's tokenizer would cut it (anything but letters, digits and combining
/// marks), and each word is quoted, so FTS5 operators (`AND`, `OR`, `NOT`, `NEAR`, `*`, `^`,
/// `-`, `:`, parentheses, quotes) are only ever words or separators. Words are joined with
/// spaces (FTS5's implicit AND) and, per `SearchRule.prefixMatching`, each matches as a prefix.
package enum SearchSyntax {
    /// Nil when the text holds no word at all.
    package static func match(_ text: String) -> String? {
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
        guard !words.isEmpty else { return nil }
        // A word holds no `"` (not a letter), so quoting needs no escaping.
        let suffix = SearchRule.prefixMatching ? "*" : ""
        return words.map { "\"\($0)\"\(suffix)" }.joined(separator: " ")
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
