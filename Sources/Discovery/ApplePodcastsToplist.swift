import FeedModel
import HTTPFetch

/// Apple's top podcasts chart (`discover top`): the iTunes RSS generator's JSON,
/// `/us/rss/toppodcasts/limit=N[/genre=G]/json`, whose entries name podcasts by their Apple id
/// but not their feeds; one iTunes lookup (`/lookup?id=A,B,…`) then gives every feed at once.
/// Podcasts without a feed in the lookup are left out (nothing to subscribe to).
public struct ApplePodcastsToplist: Sendable {
    public let baseURL: String
    public let limits: ProviderLimits
    let fetch: ProviderFetch

    public init(baseURL: String = "https://itunes.apple.com", limits: ProviderLimits = ProviderLimits(), fetcher: Fetcher) {
        self.baseURL = baseURL; self.limits = limits; fetch = ProviderFetch(fetcher: fetcher)
    }

    /// Apple's podcast genres by name (`--genre news`), for those who do not know the ids.
    public static let genres: [String: Int] = [
        "arts": 1301, "business": 1321, "comedy": 1303, "education": 1304, "fiction": 1483, "government": 1511,
        "history": 1487, "health": 1512, "kids": 1305, "leisure": 1502, "music": 1310, "news": 1489, "religion": 1314,
        "science": 1533, "society": 1324, "sports": 1545, "technology": 1318, "true-crime": 1488, "tv": 1309,
    ]

    /// A genre as typed: an id (`1489`) or a name of `genres`; nil when neither.
    public static func genre(_ text: String) -> Int? {
        if let id = Int(text), id > 0 { return id }
        return genres[text.lowercased().replacingOccurrences(of: " ", with: "-")]
    }

    public func top(limit: Int, genre: Int?) async throws(DiscoveryError) -> [DiscoveryResult] {
        let trimmed = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        let chart = trimmed + "/us/rss/toppodcasts/limit=\(limit)" + (genre.map { "/genre=\($0)" } ?? "") + "/json"
        let entries = try await fetch.json(AppleChart.self, chart, limits: limits, federated: false).feed.entries
        let ids = entries.compactMap(\.appleID)
        guard !ids.isEmpty else { return [] }
        let lookup = URLQuery.build(trimmed, "/lookup", [("id", ids.joined(separator: ",")), ("entity", "podcast")])
        let found = try await fetch.json(ITunesAnswer.self, lookup, limits: limits, federated: false).results
        var byID: [String: DiscoveryResult] = [:]
        for entry in found {
            if let result = entry.result(provider: "toplist") { byID[result.id] = result }
        }
        // The chart's order; the chart's own name and artwork where the lookup lacks them.
        return entries.compactMap { entry in
            guard let id = entry.appleID, var result = byID[id] else { return nil }
            if result.thumbnail == nil { result.thumbnail = entry.image }
            if let genre = entry.category { result.description = genre }
            return result
        }
    }
}

/// The iTunes RSS generator's chart: `{"feed": {"entry": [...]}}`, each entry with labels
/// (`im:name`, `im:image`, `id` with `attributes.im:id`, `category`); a chart of one has an
/// object instead of an array.
struct AppleChart: Decodable {
    var feed: Feed

    struct Feed: Decodable {
        var entries: [Entry]
        enum CodingKeys: String, CodingKey { case entry }
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            if let list = try? c.decode([Entry].self, forKey: .entry) { entries = list }
            else if let one = try c.decodeIfPresent(Entry.self, forKey: .entry) { entries = [one] }
            else { entries = [] }
        }
    }

    struct Label: Decodable { var label: String? }
    struct Attributes: Decodable {
        var id: String?
        var term: String?
        enum CodingKeys: String, CodingKey { case id = "im:id", term }
    }
    struct Identified: Decodable { var label: String?; var attributes: Attributes? }

    struct Entry: Decodable {
        var name: Label?
        var images: [Label]?
        var id: Identified?
        var categoryValue: Identified?
        enum CodingKeys: String, CodingKey { case name = "im:name", images = "im:image", id, categoryValue = "category" }

        var appleID: String? { id?.attributes?.id }
        var image: String? { images?.last?.label.flatMap(URLQuery.http) }
        var category: String? { categoryValue?.attributes?.term }
    }
}
