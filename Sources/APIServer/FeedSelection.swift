import FeedModel
import LibraryStore

/// What `GET /api/feed` was asked for, read from its query into the library's terms: feedctl's
/// catch-up (its own algorithm) or a page of items under filters and an order.
enum FeedSelection: Equatable {
    /// feedctl's catch-up: in-progress items, then what was missed, round-robin by channel.
    case catchUp(FeedFilter)
    /// feedctl's discovery mode (`DiscoveryMode`): never-started items of the channels played least.
    case discovery(FeedFilter)
    case page(ItemPageQuery)
    /// `search=TEXT`: the library's full-text search (`SearchRule`), best match first.
    case search(SearchQuery)

    /// A mode name as the backend (`catch_up`), the iOS guide (`Catch Up`) or feedctl
    /// (`catch-up`) spells it; nil when unknown. The mapping (docs/server.md, "Modes"):
    /// - newest, Newest → newest
    /// - discovery, Discovery → feedctl's discovery mode (`DiscoveryMode`)
    /// - catch_up, Catch Up, catch-up → feedctl's catch-up
    /// - short_form, Short Form, short-form → feedctl's short-form (`ShortForm`)
    /// - oldest, most_viewed, shortest, longest, random → that order over the whole feed
    /// - quick_watch, deep_dive → unwatched, newest first, within `DurationPresets`
    enum Mode: Equatable {
        case newest, catchUp, shortForm, quickWatch, deepDive, discovery
        case ordered(ItemOrder)
    }

    static func mode(named name: String) -> Mode? {
        let key = name.lowercased().replacingOccurrences(of: " ", with: "_").replacingOccurrences(of: "-", with: "_")
        switch key {
        case "newest": return .newest
        case "discovery": return .discovery
        case "catch_up", "catchup": return .catchUp
        case "short_form", "shortform", "shorts": return .shortForm
        case "quick_watch": return .quickWatch
        case "deep_dive": return .deepDive
        case "oldest": return .ordered(.oldest)
        case "most_viewed": return .ordered(.mostViewed)
        case "shortest": return .ordered(.shortest)
        case "longest": return .ordered(.longest)
        case "random": return .ordered(.random)
        default: return nil
        }
    }

    /// The modes as the backend spells them (`/api/openapi.json` lists these; `mode(named:)`
    /// takes the guide's and feedctl's spellings too).
    static let modeNames = ["newest", "catch_up", "short_form", "quick_watch", "deep_dive", "oldest", "most_viewed", "shortest",
                            "longest", "random", "discovery"]

    /// The backend's `sort_by` values, and the orders they stand for.
    static let orders: KeyValuePairs<String, ItemOrder> = [
        "newest": .newest, "oldest": .oldest, "views": .mostViewed, "duration_asc": .shortest, "duration_desc": .longest, "random": .random,
    ]
    static var orderNames: [String] { orders.map(\.key) }

    static func order(named name: String) -> ItemOrder? {
        orders.first { $0.key == name }?.value
    }
}
