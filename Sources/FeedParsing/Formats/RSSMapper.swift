import FeedText

/// RSS 0.91/0.92/2.0 (no namespace) and RSS 1.0 / RDF (the same element names in the
/// `http://purl.org/rss/1.0/` namespace, items as siblings of the channel).
enum RSSMapper {
    static func start(_ e: XMLElement, parent: Container, _ b: FeedBuilder, container: inout Container) -> Field? {
        guard e.namespace == .none || e.namespace == .rss10 else {
            // `atom:link rel="self"`: the feed's own URL; `rel="next"`: its next page (RFC 5005).
            if e.namespace == .atom, e.name == "link", !b.inItem, parent == .channel {
                switch e.attributes["rel"]?.trimmingWhitespace().lowercased() {
                case "self"?: if b.channel.selfURL == nil { b.channel.selfURL = e.attributes["href"] }
                case "next"?: if b.channel.nextPage == nil { b.channel.nextPage = e.attributes["href"] }
                default: break
                }
            }
            return nil
        }
        if b.inItem {
            guard parent == .item else { return nil }
            switch e.name {
            case "title": return .title
            case "link": return .link
            case "description": return .description
            case "pubDate": return .published
            case "author": return .author
            case "guid":
                let permaLink = e.attributes["isPermaLink"]?.trimmingWhitespace()
                b.item?.guidIsPermaLink = permaLink?.isASCIICaseless("false") != true
                return .guid
            case "enclosure":
                if b.item?.enclosureURL == nil, let url = e.attributes["url"] {
                    b.item?.enclosureURL = url
                    b.item?.enclosureType = e.attributes["type"]
                    b.item?.enclosureLength = e.attributes["length"]
                }
                return nil
            default: return nil
            }
        }
        switch e.name {
        case "channel": container = .channel
        case "item":
            container = .item
            b.beginItem(e)
            // RSS 1.0 names each item by its `rdf:about`.
            if b.format == .rdf, let about = e.attributes.value("about", in: .rdf) { b.item?.rdfAbout = about }
        case "image": container = .image
        case "textinput", "textInput": container = .textInput
        case "title" where parent == .channel: return .channelTitle
        case "link" where parent == .channel: return .channelLink
        case "description" where parent == .channel: return .channelDescription
        case "language" where parent == .channel: return .channelLanguage
        case "managingEditor" where parent == .channel: return .channelAuthor
        case "webMaster" where parent == .channel: return .channelWebMaster
        case "url" where parent == .image: return .channelImage
        default: break
        }
        return nil
    }
}
