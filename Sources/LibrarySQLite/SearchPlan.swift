import FeedModel
import GRDB
import LibraryStore

/// How one search reads the index. `SearchRule` decides what a search finds and in which order;
/// this only decides how SQLite gets there without reading more than the page needs.
///
/// FTS5 reads an exact word's entries lazily, newest first, skipping ahead through its doclist
/// index, and a prefix of 1 to 3 characters the same way (the index's `prefix = '1 2 3'`). Any
/// longer prefix (`"chan"*`) it first merges, whole, from every word it starts: on the bench
/// library "channel"'s million entries (~70 ms), before the first row, for any page and for the
/// rarity check as well. So for the newest-first order the last word, when longer, is spelled
/// as the words it stands for, found by seeks in the index's vocabulary: `"chan"*` is
/// `"channel" OR "chance"`. The same items match, and every phrase is read lazily, so
/// `LIMIT 20` reads about 20 entries of each word even when a word is in every item.
///
/// The ranked order keeps FTS5's own prefix phrase: bm25 then weighs the word typed as one term,
/// as `SearchRule` says, and ranking happens only when every word is in at most
/// `SearchRule.rankedWordLimit` items, so merging the prefix is bounded by that too.
struct SearchPlan: Equatable {
    /// The per-connection fts5vocab table (`instance`) over `items_search` (see `SQLiteLibrary.init`).
    static let termsTable = "items_search_terms"
    /// A prefix standing for more words than this stays FTS5's prefix phrase: correct, only not
    /// lazy. Each one is a seek (~tens of µs).
    static let maxSpelledWords = 64

    /// The FTS5 query bm25 ranks by: every term as `SearchSyntax` spells it.
    let match: String
    /// The same items as `match`, every phrase lazy (nil: the last word starts no indexed word,
    /// so nothing matches).
    let lazyMatch: String?
    /// Each word's FTS5 query, lazy, for the rarity check.
    let lazyPhrases: [String]

    /// A newest-first search whose words are of two kinds, read two ways. FTS5's AND walks its
    /// phrases in step: each row one phrase offers, the others seek to, and a phrase in nearly
    /// every item seeks by stepping through its doclist entry by entry up to that row. So
    /// `item 42 channel 9` on the bench library stepped through "item" and "channel" over every
    /// row from the newest down to the 20th match (half the library: ~1,000 rows holding "42"),
    /// whatever the page. Split, the other words (`driver`) find the rows newest first and
    /// each row found is looked up for the everywhere-words (`check`: a seek from the doclist's
    /// start, tens of µs), so a page costs about as many lookups as it has rows.
    struct Split: Equatable {
        /// The words not in nearly every item, ANDed.
        let driver: String
        /// Those words' phrases, one by one.
        let driverPhrases: [String]
        /// The words in nearly every item (`PhraseSample.isEverywhere`), ANDed.
        let check: String

        /// nil unless some words are everywhere and at least two others are not: one driver
        /// phrase leads FTS5's AND by itself, each of its rows a seek of the others, which costs
        /// less than looking the row up. Only a single word is ever checked: a lookup in a
        /// prefix's phrase (an OR of prefix-index terms) starts every one of its terms'
        /// iterators and costs far more.
        init?(_ samples: [PhraseSample]) {
            let everywhere = samples.filter(\.isEverywhere)
            let others = samples.filter { !$0.isEverywhere }
            guard !everywhere.isEmpty, others.count >= 2 else { return nil }
            driverPhrases = others.map(\.phrase)
            driver = driverPhrases.joined(separator: " AND ")
            check = everywhere.map(\.phrase).joined(separator: " AND ")
        }
    }

    /// Whether `phrase` (one of `lazyPhrases`) is one whole word, not a prefix or an OR of words.
    static func isExactWord(_ phrase: String) -> Bool {
        !phrase.hasPrefix("(") && !phrase.hasSuffix("*")
    }

    /// Entries of a word read, newest first, to tell whether it is dense, once another word was
    /// found too common to rank by.
    static let densitySample = 256
    /// A split search looks rows up one by one only when every driver phrase has more entries
    /// than this per row the driver finds. On the bench library a lookup of two words took
    /// 50–190 µs and FTS5's AND spent ~10 µs per everywhere-word per row it visited (~20 ms
    /// for ~1,000 rows of "42" and two such words): a lookup is worth ~8 visited rows.
    static let leapfrogRatio = 8
    /// Rows of the driver a split search looks up and finds without the everywhere-words
    /// before it gives the rest of the page to one AND (a split that guessed wrong costs that
    /// many lookups, ~64 × tens of µs, and no more).
    static let maxMissedChecks = 64

    /// nil when `text` holds no word.
    init?(_ text: String, _ db: Database) throws {
        let terms = SearchTerms(text)
        var phrases = SearchSyntax.phrases(terms)
        guard let last = terms.terms.last else { return nil }
        match = phrases.joined(separator: " ")
        if last.prefix, let spelled = try Self.spell(prefix: last.word, db) {
            guard !spelled.isEmpty else {
                (lazyMatch, lazyPhrases) = (nil, [])
                return
            }
            phrases[phrases.count - 1] = spelled.count == 1 ? spelled[0] : "(" + spelled.joined(separator: " OR ") + ")"
        }
        lazyPhrases = phrases
        // Explicit AND: FTS5 takes no implicit AND next to a parenthesized OR.
        lazyMatch = phrases.joined(separator: " AND ")
    }

    /// The phrases `prefix*` stands for, each lazy in FTS5 (empty: no indexed word starts with
    /// it); nil when FTS5's own prefix phrase is kept: the prefix index serves it (1 to 3
    /// characters), it is not ASCII (we would have to fold it as the tokenizer does, accents and
    /// all; ASCII it only lowercases), or it stands for too many words.
    static func spell(prefix word: String, _ db: Database) throws -> [String]? {
        guard word.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
        let prefix = word.lowercased()
        guard prefix.utf8.count > indexedPrefixLength else { return nil }
        let seek = try db.cachedStatement(sql: "SELECT term FROM temp.\(termsTable) WHERE term >= ? LIMIT 1")
        var spelled: [String] = []
        var from = prefix
        // Terms come in byte order; those starting with `prefix` are one run from `prefix` on.
        while let term = try String.fetchOne(seek, arguments: [from]), term.utf8.starts(with: prefix.utf8) {
            guard spelled.count < maxSpelledWords else { return nil }
            // A term is tokenizer output: no `"` (a separator), so quoting needs no escaping.
            spelled.append("\"\(term)\"")
            // The next term: tokens hold no control characters, so none sorts between.
            from = term + "\u{1}"
        }
        return spelled
    }

    /// The longest prefix the index's prefix indexes serve (`prefix = '1 2 3'`, `Schema.v12`).
    static let indexedPrefixLength = 3
}
