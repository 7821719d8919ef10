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

    /// The backend's `sort_by` values.
    static func order(named name: String) -> ItemOrder? {
        switch name {
        case "newest": return .newest
        case "oldest": return .oldest
        case "views": return .mostViewed
        case "duration_asc": return .shortest
        case "duration_desc": return .longest
        case "random": return .random
        default: return nil
        }
    }
}
