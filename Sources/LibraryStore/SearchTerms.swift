import FeedModel

/// What a person typed into a search, read as `SearchRule` says, for every store: plain words,
/// never query syntax. The text is cut into words at anything but letters, digits and combining
/// marks (where a full-text index's tokenizer cuts it: SQLite's unicode61, PostgreSQL's default
/// parser with `unaccent`), so quotes, `AND`, `OR`, `NOT`, `NEAR`, `*`, `^`, `-`, `:` and
/// parentheses are only ever words or separators. Every word must match; the last one also as
/// the start of a longer word (`SearchRule.prefixMatching`). Each store spells the terms in its
/// own index's syntax, and only that.
public struct SearchTerms: Sendable, Equatable {
    /// One word, and whether it matches as a prefix too.
    public struct Term: Sendable, Hashable {
        public var word: String
        public var prefix: Bool
        public init(word: String, prefix: Bool) { self.word = word; self.prefix = prefix }
    }

    /// In the order typed.
    public let terms: [Term]

    public init(_ text: String) {
        let words = Self.words(text)
        terms = words.enumerated().map { index, word in
            Term(word: word, prefix: SearchRule.prefixMatching && index == words.count - 1)
        }
    }

    /// The terms of `text`; `invalid` when it holds no word (every store's one line for it).
    public init(checking text: String) throws(LibraryError) {
        self.init(text)
        guard !isEmpty else { throw .invalid("nothing to search for in \"\(text)\": give a word") }
    }

    /// No word at all (only punctuation or spaces): nothing to search for.
    public var isEmpty: Bool { terms.isEmpty }
    public var words: [String] { terms.map(\.word) }

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

    /// A tokenizer's token characters: letters, numbers, and marks (so "é" typed as e + U+0301
    /// stays one word, which the index folds to "e").
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
