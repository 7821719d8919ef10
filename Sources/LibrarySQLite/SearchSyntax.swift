import LibraryStore

/// The search terms a person typed (`SearchTerms`: the engine-neutral reading) spelled as FTS5
/// queries that cannot be syntax errors: each word quoted (a word holds no `"`, not being a
/// letter, so quoting needs no escaping), a prefix term followed by `*`, joined with spaces
/// (FTS5's implicit AND).
package enum SearchSyntax {
    /// Each term as its own FTS5 query, in order.
    static func phrases(_ terms: SearchTerms) -> [String] {
        terms.terms.map { "\"\($0.word)\"" + ($0.prefix ? "*" : "") }
    }
}
