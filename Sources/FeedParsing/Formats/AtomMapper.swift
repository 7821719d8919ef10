import FeedText

/// Atom 1.0 and 0.3 (`issued`/`modified`/`tagline` and `mode="escaped"` content). YouTube
/// feeds are Atom plus `yt:`/`media:` elements, which `ExtensionMapper` reads.
enum AtomMapper {
    static func start(_ e: XMLElement, parent: Container, _ b: FeedBuilder, container: inout Container) -> Field? {
        guard e.namespace == .atom || e.namespace == .atom03 || e.namespace == .none else { return nil }
        let inItem = b.inItem
        switch e.name {
        case "entry": container = .item; b.beginItem(e); return nil
        case "author": container = .author; return nil
        case "name" where parent == .author: return inItem ? .author : .channelAuthor
        case "link": link(e, parent: parent, b); return nil
        default: break
        }
        if inItem {
            guard parent == .item else { return nil }
            switch e.name {
            case "title": b.item?.titleIsHTML = isMarkup(e); return .title
            case "id": return .guid
            case "published", "issued": return .published
            case "updated", "modified": return .updated
            case "summary": return .summary
            case "content": return .content
            default: return nil
            }
        }
        guard e.depth == 1 else { return nil }
        switch e.name {
        case "title": return .channelTitle
        case "subtitle", "tagline": return .channelDescription
        case "logo": return .channelImage
        // The icon is small: only when there is no logo (a logo after it replaces it).
        case "icon": return b.channel.image == nil ? .channelImage : nil
        default: return nil
        }
    }

    private static func link(_ e: XMLElement, parent: Container, _ b: FeedBuilder) {
        guard let href = e.attributes["href"] else { return }
        let rel = e.attributes["rel"]?.trimmingWhitespace().lowercased() ?? "alternate"
        if b.inItem {
            guard parent == .item else { return }
            switch rel {
            case "alternate":
                // Prefer the HTML page when an entry has several alternates.
                let isHTML = e.attributes["type"].map { $0.containsBytes("html") } ?? true
                if b.item?.link == nil || isHTML && b.item?.linkIsFallback == true {
                    b.item?.link = href
                    b.item?.linkIsFallback = !isHTML
                }
            case "enclosure" where b.item?.enclosureURL == nil:
                b.item?.enclosureURL = href
                b.item?.enclosureType = e.attributes["type"]
                b.item?.enclosureLength = e.attributes["length"]
            default: break
            }
        } else if e.depth == 1 {
            switch rel {
            case "alternate" where b.channel.link == nil: b.channel.link = href
            case "self" where b.channel.selfURL == nil: b.channel.selfURL = href
            case "next" where b.channel.nextPage == nil: b.channel.nextPage = href
            default: break
            }
        }
    }

    private static func isMarkup(_ e: XMLElement) -> Bool {
        let type = e.attributes["type"]?.lowercased()
        return type == "html" || type == "xhtml" || type == "text/html" || e.attributes["mode"] == "escaped"
    }
}
