import FeedModel
import Glibc  // log: bm25's idf
import LibraryStore

// Full-text search (`SearchRule`), as the SQLite library's (SQLiteLibrary+Search.swift): the same
// words (`SearchTerms`), matches, filters, paging, per-user visibility and order. The index is
// `items_search` (PostgresSchema.search): one tsvector per item, title A, channel name B, notes D,
// under a GIN index. User text only ever travels as parameters: `search_term` reads each word as
// words, never as tsquery syntax.

extension PostgresLibrary {
    /// One page of the items matching `query.text`, best match first (bm25 as SQLite's FTS5
    /// computes it: `SearchRank`) when every word is in at most `SearchRule.rankedWordLimit`
    /// items, else newest first, under `feed`'s filters.
    public func search(_ query: SearchQuery) async throws(LibraryError) -> [LibraryItem] {
        let terms = TypedTerms(try SearchTerms(checking: query.text))
        guard !query.page.isPastAnyEnd else { return [] }
        let page = SearchPage(user: user, filter: query.filter, page: query.page, terms: terms)
        // One snapshot: the counts that choose the order and weigh the words, and the page.
        return try await snapshot { db throws(LibraryError) in
            switch try terms.order(db) {
            case .nothing: return []
            case .newest: return try page.fetch(.newest, db)
            case .ranked(let hits): return try page.fetch(.ranked(SearchRank(hits: hits, typed: terms.counts, items: try SearchRank.items(db))), db)
            }
        }
    }
}

/// The words typed, each distinct one once, in the order first typed: as parameters of
/// `search_term`/`search_query` (`text[]`, `boolean[]`).
struct TypedTerms: Sendable {
    let words: [String]
    let prefixes: [Bool]
    /// How many times each was typed: a word typed twice matches as once, and bm25 counts it twice.
    let counts: [Int]

    init(_ terms: SearchTerms) {
        var distinct: [SearchTerms.Term] = []
        var counts: [Int] = []
        var index: [SearchTerms.Term: Int] = [:]
        for term in terms.terms {
            if let at = index[term] {
                counts[at] += 1
            } else {
                index[term] = distinct.count
                distinct.append(term)
                counts.append(1)
            }
        }
        (words, prefixes, self.counts) = (distinct.map(\.word), distinct.map(\.prefix), counts)
    }

    enum Order {
        /// Some word is in no item.
        case nothing
        /// Some word is in more than `SearchRule.rankedWordLimit` items.
        case newest
        /// Every word is in at most that many: how many items each is in.
        case ranked([Int])
    }

    /// How the matches come out, as SQLite's store decides it: each word's items are counted, up
    /// to the limit plus one (a GIN lookup of that word alone), in the order typed, and the
    /// counting stops at the first word too common to rank by, or in nothing.
    func order(_ db: PGConnection) throws(LibraryError) -> Order {
        var hits: [Int] = []
        for (word, prefix) in zip(words, prefixes) {
            let count: Int = try db.query(Self.countSQL, [word, prefix, SearchRule.rankedWordLimit + 1]).first?.get("n") ?? 0
            if count == 0 { return .nothing }
            if count > SearchRule.rankedWordLimit { return .newest }
            hits.append(count)
        }
        return .ranked(hits)
    }

    /// How many items one word (`$1`, prefix `$2`) is in, up to `$3`.
    static let countSQL = "SELECT count(*) AS n FROM (SELECT FROM items_search WHERE document @@ search_term($1, $2) LIMIT $3) AS hit"
}

/// bm25 as SQLite's FTS5 computes it (fts5_aux.c, `bm25()` with the weights `Schema.searchRank`
/// spells from `SearchRule`), so both stores put the same items first:
///
///     score = Σ over the words typed of idf × f × (k1 + 1) / (f + k1 × (1 − b + b × D / avgdl))
///
/// where f is the word's weighted count in the item (each occurrence weighs its part's
/// `SearchRule` weight: title, channel name, notes; a prefix counts every word it starts), D the
/// item's length in words (`items_search.length`), idf = ln((N − n + 0.5) / (n + 0.5)) (at least
/// 1e-6) for a word in n of the index's N items. Ties go to the older item (the lower id), as
/// FTS5's sort leaves them.
///
/// Two of FTS5's inputs are totals its index keeps and would cost a pass over the whole index
/// here, so they are read cheaply instead: N is the index's highest item id (ids are never
/// reused: the number of items ever indexed, N itself until items are removed), and avgdl is
/// the mean length of the items the search matches, not of all items. Where those differ from
/// SQLite's (matches much longer or shorter than the library's average, many items removed),
/// length and rarity weigh a little more or less than there, and items close in score can come
/// in another order; where they agree the order is SQLite's (`PostgresSearchTests`). A word that
/// `unaccent` makes into several (`x½` is the phrase "x1 2") is counted by its first part.
struct SearchRank: Sendable {
    static let k1 = 1.2
    static let b = 0.75

    /// Each distinct word's idf, times how many times it was typed (FTS5 sums one term per
    /// word typed).
    let weights: [Double]

    init(hits: [Int], typed: [Int], items: Int64) {
        let total = Double(items)
        weights = zip(hits, typed).map { hits, typed in
            let idf = log((total - Double(hits) + 0.5) / (Double(hits) + 0.5))
            return (idf > 0 ? idf : 1e-6) * Double(typed)
        }
    }

    /// N: the highest item id indexed, one step down the primary key.
    static func items(_ db: PGConnection) throws(LibraryError) -> Int64 {
        try db.query("SELECT coalesce(max(item), 0) AS n FROM items_search").first?.get("n") ?? 0
    }
}

/// The page a search returns: the user's items (`LibraryItem.pgJoins`) under `feed`'s filters
/// (conditions on `i`, `c`, `w`).
struct SearchPage: Sendable {
    let user: UserID
    let filter: FeedFilter
    let page: PageRequest
    let terms: TypedTerms

    enum Order {
        case newest
        case ranked(SearchRank)
    }

    func fetch(_ order: Order, _ db: PGConnection) throws(LibraryError) -> [LibraryItem] {
        let statement = statement(order)
        return try db.query(statement.sql, statement.parameters).rows.map { row throws(LibraryError) in try LibraryItem(pgRow: row) }
    }

    /// The page's one statement.
    func statement(_ order: Order) -> PGStatement {
        switch order {
        case .newest: newest()
        case .ranked(let rank): ranked(rank)
        }
    }

    /// Matches newest first (ids grow with discovery).
    private func newest() -> PGStatement {
        var parameters = PGParameters(user.rawValue)
        let matches = "x.document @@ search_query(\(parameters.add(terms.words))::text[], \(parameters.add(terms.prefixes))::boolean[])"
        let conditions = [matches] + filter.pgConditions(&parameters)
        let (limit, offset) = (parameters.add(Int64(page.perPage)), parameters.add(Int64(page.offset)))
        return parameters.statement("""
            SELECT \(LibraryItem.pgSelection)
            FROM items_search x JOIN items i ON i.id = x.item \(LibraryItem.pgJoins(user: "$1"))
            WHERE \(conditions.joined(separator: " AND "))
            ORDER BY i.id DESC
            LIMIT \(limit) OFFSET \(offset)
            """)
    }

    /// Matches best first (`SearchRank`). Every match in the index is scored, whoever follows
    /// it (at most `SearchRule.rankedWordLimit` of them), so an item's score is the same under
    /// every filter and on every page; then the user's rows under the filters are paged. (A word
    /// in that many items costs ~0.2 s here, scoring each match in SQL; FTS5 does it in C.)
    private func ranked(_ rank: SearchRank) -> PGStatement {
        var parameters = PGParameters(user.rawValue)
        let (words, prefixes, weights) = (parameters.add(terms.words), parameters.add(terms.prefixes), parameters.add(rank.weights))
        let (title, channel, notes) = (parameters.add(SearchRule.titleWeight), parameters.add(SearchRule.channelWeight),
                                       parameters.add(SearchRule.notesWeight))
        let (k1, b) = (parameters.add(SearchRank.k1), parameters.add(SearchRank.b))
        let conditions = filter.pgConditions(&parameters)
        let (limit, offset) = (parameters.add(Int64(page.perPage)), parameters.add(Int64(page.offset)))
        return parameters.statement("""
            WITH term AS MATERIALIZED (
                -- Each distinct word's first lexeme as search_term reads it (the word's only one but for
                -- what unaccent splits), a prefix when the word is and it is the only one.
                SELECT DISTINCT ON (typed.n) typed.n, typed.weight, v.lexeme,
                       typed.prefix AND count(*) OVER (PARTITION BY typed.n) = 1 AS prefix
                FROM unnest(\(words)::text[], \(prefixes)::boolean[], \(weights)::float8[]) WITH ORDINALITY AS typed(word, prefix, weight, n)
                CROSS JOIN LATERAL (SELECT lexeme, positions[1] AS first FROM unnest(to_tsvector('simple', search_fold(typed.word)))) AS v
                ORDER BY typed.n, v.first
            ), matched AS (
                SELECT x.item, x.document, x.length FROM items_search x WHERE x.document @@ search_query(\(words)::text[], \(prefixes)::boolean[])
            ), scored AS (
                -- hits: a word's occurrences, each weighing its part's weight (A title, B channel, D notes).
                -- The arithmetic in FTS5's order, so equal statistics give the very same score.
                SELECT m.item, (
                    SELECT sum(term.weight * ((f.hits * (\(k1)::float8 + 1)) / (f.hits + \(k1)::float8 * (1 - \(b)::float8 + \(b)::float8 * m.length / mean.length))))
                    FROM term CROSS JOIN LATERAL (
                        SELECT sum(CASE part WHEN 'A' THEN \(title)::float8 WHEN 'B' THEN \(channel)::float8 ELSE \(notes)::float8 END) AS hits
                        FROM unnest(m.document) AS d CROSS JOIN LATERAL unnest(d.weights) AS part
                        WHERE d.lexeme = term.lexeme OR (term.prefix AND starts_with(d.lexeme, term.lexeme))) AS f
                ) AS score
                FROM matched m CROSS JOIN (SELECT sum(length)::float8 / count(*)::float8 AS length FROM matched) AS mean
            )
            SELECT \(LibraryItem.pgSelection)
            FROM scored r JOIN items i ON i.id = r.item \(LibraryItem.pgJoins(user: "$1"))
            \(conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND "))
            ORDER BY r.score DESC, i.id
            LIMIT \(limit) OFFSET \(offset)
            """)
    }
}
