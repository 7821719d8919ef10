/// The cross-format work, done once per finished item and once per channel: URLs resolved
/// (xml:base, document URL, podcast schemes), identity, dates, durations and text cleanup.
enum ItemNormalizer {
    static func item(from r: RawItem, shortsFeed: Bool) -> Item {
        func url(_ s: String?) -> String? { nonEmpty(s.map { URLs.resolve($0, against: r.base) }) }

        var item = Item()
        item.guid = nonEmpty(r.guid?.trimmingWhitespace())
        let rawTitle = r.title.flatMap(nonBlank) ?? r.mediaTitle
        item.title = (r.titleIsHTML ? rawTitle.flatMap(TextCleaner.plainText(fromHTML:)) : rawTitle.flatMap(TextCleaner.collapse)) ?? ""
        item.published = (r.published ?? (r.isAtom ? r.updated : nil)).flatMap(DateParser.parse)
        item.updated = r.updated.flatMap(DateParser.parse)
        item.duration = r.duration.flatMap(DurationParser.parse)
        // Chained rather than `[a, b, c].lazy.compactMap`: no array per item.
        item.author = r.itunesAuthor.flatMap(TextCleaner.collapse) ?? r.dcCreator.flatMap(TextCleaner.collapse)
            ?? r.author.flatMap(TextCleaner.collapse)
        item.description = r.description.flatMap(TextCleaner.plainText(fromHTML:)) ?? r.summary.flatMap(TextCleaner.plainText(fromHTML:))
            ?? r.content.flatMap(TextCleaner.plainText(fromHTML:)) ?? r.mediaDescription.flatMap(TextCleaner.plainText(fromHTML:))
        item.thumbnail = url(r.thumbnail) ?? url(r.itunesImage)
        item.episode = integer(r.episode) ?? integer(r.podcastEpisode)
        item.season = integer(r.season) ?? integer(r.podcastSeason)
        item.episodeType = nonEmpty(r.episodeType?.trimmingWhitespace().lowercased())
        item.explicit = r.explicit.flatMap(explicit)
        item.chaptersURL = url(r.chaptersURL)
        item.transcriptURL = url(r.transcriptURL)
        item.persons = r.persons.map { p in
            Person(name: p.name, role: nonEmpty(p.role?.trimmingWhitespace()), href: url(p.href), image: url(p.image))
        }
        item.funding = r.funding.compactMap { l in url(l.url).map { Link(url: $0, title: l.title) } }
        item.views = r.views.flatMap { Int64($0.trimmingWhitespace()) }

        let videoID = nonEmpty(r.videoID?.trimmingWhitespace()) ?? youTubeID(fromAtomID: item.guid)
        if let videoID {
            // YouTube: the video id is the identity; the page is the watch or shorts URL.
            item.id = videoID
            item.url = url(r.link) ?? "https://www.youtube.com/watch?v=\(videoID)"
            item.isShort = shortsFeed || item.url?.containsBytes("/shorts/") == true
            return item
        }

        if let encURL = url(r.enclosureURL) {
            item.enclosure = Enclosure(url: encURL, type: nonEmpty(r.enclosureType?.trimmingWhitespace()),
                                       length: length(r.enclosureLength))
        } else if let media = r.mediaContent, let mediaURL = url(media.url) {
            item.enclosure = Enclosure(url: mediaURL, type: nonEmpty(media.type), length: length(media.length))
        }
        // The web page: the link, else a guid that is a permalink.
        item.url = url(r.link)
        if item.url == nil, let guid = item.guid, r.guidIsPermaLink || r.isAtom, isWebURL(guid) {
            item.url = URLs.resolve(guid, against: r.base)
        }
        item.isShort = item.url?.containsBytes("/shorts/") == true
        item.id = ItemIdentity.fallback(guid: item.guid, enclosureURL: item.enclosure?.url, link: item.url,
                                        title: item.title, published: item.published)
        return item
    }

    static func feed(from c: RawChannel, kind: Feed.Kind) -> Feed {
        func url(_ s: String?) -> String? { nonEmpty(s.map { URLs.resolve($0, against: c.base) }) }
        var feed = Feed(kind: kind)
        feed.title = c.title.flatMap(TextCleaner.plainText(fromHTML:)) ?? ""
        feed.link = url(c.link)
        feed.description = (c.description ?? c.itunesSummary).flatMap(TextCleaner.plainText(fromHTML:))
        feed.author = (c.itunesAuthor ?? c.author).flatMap(TextCleaner.collapse)
        feed.image = url(c.itunesImage) ?? url(c.image)
        feed.language = nonEmpty(c.language?.trimmingWhitespace())
        feed.selfURL = url(c.selfURL)
        feed.funding = c.funding.compactMap { l in url(l.url).map { Link(url: $0, title: l.title) } }
        if kind == .youtube {
            // The feed-level yt:channelId lacks the `UC` prefix the entries carry.
            if let id = nonEmpty(c.entryChannelID?.trimmingWhitespace()) {
                feed.channelID = id
            } else if let id = nonEmpty(c.ytChannelID?.trimmingWhitespace()) {
                feed.channelID = id.hasPrefix("UC") ? id : "UC" + id
            }
        }
        return feed
    }

    static func nonEmpty(_ s: String?) -> String? {
        guard let s, !s.isEmpty else { return nil }
        return s
    }

    private static func nonBlank(_ s: String) -> String? { s.trimmingWhitespace().isEmpty ? nil : s }

    private static func integer(_ s: String?) -> Int? { s.flatMap { Int($0.trimmingWhitespace()) } }

    /// Bytes; missing, zero, negative or garbage is nil.
    private static func length(_ s: String?) -> Int64? {
        guard let n = s.flatMap({ Int64($0.trimmingWhitespace()) }), n > 0 else { return nil }
        return n
    }

    private static func explicit(_ s: String) -> Bool? {
        let word = s.trimmingWhitespace()
        if word.isASCIICaseless("yes") || word.isASCIICaseless("true") || word.isASCIICaseless("explicit") { return true }
        if word.isASCIICaseless("no") || word.isASCIICaseless("false") || word.isASCIICaseless("clean") { return false }
        return nil
    }

    private static func isWebURL(_ s: String) -> Bool {
        s.hasASCIICaselessPrefix("http://") || s.hasASCIICaselessPrefix("https://")
    }

    /// `yt:video:ID` (the entry's Atom id) → `ID`.
    private static func youTubeID(fromAtomID id: String?) -> String? {
        guard let id, id.hasPrefix("yt:video:") else { return nil }
        return nonEmpty(String(id.dropFirst("yt:video:".count)))
    }
}
