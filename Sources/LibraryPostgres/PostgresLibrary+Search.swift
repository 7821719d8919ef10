import FeedModel
import Foundation
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
            case .newest: return try page.newest(db)
            case .ranked(let hits): return try page.ranked(SearchRank(hits: hits, typed: terms.counts, items: try SearchRank.items(db)), db)
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
            let count: Int = try db.query("""
                SELECT count(*) AS n FROM (SELECT FROM items_search WHERE document @@ search_term($1, $2) LIMIT $3) AS hit
                """, [word, prefix, SearchRule.rankedWordLimit + 1]).first?.get("n") ?? 0
            if count == 0 { return .nothing }
            if count > SearchRule.rankedWordLimit { return .newest }
            hits.append(count)
        }
        return .ranked(hits)
    }
}

/// bm25 as SQLite's FTS5 computes it (fts5_aux.c, `bm25()` with the weights `Schema.searchRank`
/// spells from `SearchRule`), so both stores put the same items first:
///
///     score = Σ over the words typed of idf × f × (k1 + 1) / (f + k1 × (1 − b + b × D / avgdl))
///
/// where f is the word's weighted count in the item (each occurrence weighs its part's
/// `SearchRule` weight: title, channel name, notes; a prefix counts every word it starts), D the
/// item's length in words, idf = ln((N − n + 0.5) / (n + 0.5)) (at least 1e-6) for a word in n
/// of the index's N items. Ties go to the older item (the lower id), as FTS5's sort leaves them.
///
/// Two of FTS5's inputs are kept by its index and would cost a pass over the whole index here,
/// so they are read cheaply instead: N is the index's highest item id (ids are never reused: the
/// number of items ever indexed, N itself until items are removed), and avgdl is the mean length
/// of the items the search matches, not of all items. Orders differ from SQLite's only where
/// those shift a near tie. A word that `unaccent` makes into several (`x½` is "x1 2") counts as
/// its least frequent part.
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
private struct SearchPage: Sendable {
    let user: UserID
    let filter: FeedFilter
    let page: PageRequest
    let terms: TypedTerms

    /// Matches newest first (ids grow with discovery).
    func newest(_ db: PGConnection) throws(LibraryError) -> [LibraryItem] {
        var parameters: [any PGBindable] = [user.rawValue, terms.words, terms.prefixes]
        let conditions = filterConditions(&parameters)
        parameters += [Int64(page.perPage), Int64(page.offset)]
        return try db.query("""
            SELECT \(LibraryItem.pgSelection)
            FROM items_search x JOIN items i ON i.id = x.item \(LibraryItem.pgJoins(user: "$1"))
            WHERE \((["x.document @@ search_query($2::text[], $3::boolean[])"] + conditions).joined(separator: " AND "))
            ORDER BY i.id DESC
            LIMIT $\(parameters.count - 1) OFFSET $\(parameters.count)
            """, parameters).rows.map { row throws(LibraryError) in try LibraryItem(pgRow: row) }
    }

    /// Matches best first (`SearchRank`). Every match of the index is scored, whoever follows
    /// it (at most `SearchRule.rankedWordLimit` of them), so an item's score and avgdl are the
    /// same under every filter and on every page; the user's and the filters' rows are paged.
    func ranked(_ rank: SearchRank, _ db: PGConnection) throws(LibraryError) -> [LibraryItem] {
        var parameters: [any PGBindable] = [user.rawValue, terms.words, terms.prefixes, rank.weights,
                                            SearchRule.titleWeight, SearchRule.channelWeight, SearchRule.notesWeight,
                                            SearchRank.k1, SearchRank.b]
        let conditions = filterConditions(&parameters)
        parameters += [Int64(page.perPage), Int64(page.offset)]
        return try db.query("""
            WITH term AS (
                -- Each distinct word's lexemes as the index holds them (search_term's), the last one a prefix when the word is.
                SELECT typed.n, typed.weight, v.lexeme, typed.prefix AND v.last = max(v.last) OVER (PARTITION BY typed.n) AS prefix
                FROM unnest($2::text[], $3::boolean[], $4::float8[]) WITH ORDINALITY AS typed(word, prefix, weight, n)
                CROSS JOIN LATERAL (SELECT lexeme, positions[cardinality(positions)] AS last
                                    FROM unnest(to_tsvector('simple', search_fold(typed.word)))) AS v
            ), matched AS (
                SELECT x.item, x.document, (SELECT sum(cardinality(positions)) FROM unnest(x.document)) AS length
                FROM items_search x WHERE x.document @@ search_query($2::text[], $3::boolean[])
            ), scored AS (
                SELECT m.item, (
                    SELECT sum(f.weight * f.hits * ($8::float8 + 1) / (f.hits + $8::float8 * (1 - $9::float8 + $9::float8 * m.length / mean.length)))
                    FROM (SELECT counted.n, counted.weight, min(counted.hits) AS hits
                          FROM (SELECT term.n, term.weight, term.lexeme,
                                       sum(CASE part WHEN 'A' THEN $5::float8 WHEN 'B' THEN $6::float8 ELSE $7::float8 END) AS hits
                                FROM term JOIN (unnest(m.document) AS d CROSS JOIN LATERAL unnest(d.weights) AS part)
                                     ON d.lexeme = term.lexeme OR (term.prefix AND starts_with(d.lexeme, term.lexeme))
                                GROUP BY term.n, term.weight, term.lexeme) AS counted
                          GROUP BY counted.n, counted.weight) AS f
                ) AS score
                FROM matched m CROSS JOIN (SELECT avg(length)::float8 AS length FROM matched) AS mean
            )
            SELECT \(LibraryItem.pgSelection)
            FROM scored r JOIN items i ON i.id = r.item \(LibraryItem.pgJoins(user: "$1"))
            \(conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND "))
            ORDER BY r.score DESC, i.id
            LIMIT $\(parameters.count - 1) OFFSET $\(parameters.count)
            """, parameters).rows.map { row throws(LibraryError) in try LibraryItem(pgRow: row) }
    }

    /// `filter` as conditions on `i`, `c` and `w`, its values appended to `parameters`.
    private func filterConditions(_ parameters: inout [any PGBindable]) -> [String] {
        var conditions: [String] = []
        if let channelID = filter.channelID {
            parameters.append(channelID)
            conditions.append("i.channel_id = $\(parameters.count)")
        }
        if let platform = filter.platform {
            parameters.append(platform.rawValue)
            conditions.append("c.platform = $\(parameters.count)")
        }
        if filter.unwatchedOnly { conditions.append("w.watched IS DISTINCT FROM 1") }
        if filter.watchedOnly { conditions.append("w.watched = 1") }
        return conditions
    }
}
