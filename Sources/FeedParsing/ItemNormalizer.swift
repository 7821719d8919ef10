import FeedModel
import FeedText

/// The cross-format work, done once per finished item and once per channel: URLs resolved
/// (xml:base, document URL, podcast schemes), identity, dates, durations and text cleanup.
enum ItemNormalizer {
    /// `shortsFeed` is asked only for YouTube items.
    static func item(from r: RawItem, shortsFeed: @autoclosure () -> Bool) -> Item {
        func url(_ s: String?) -> String? { keep(s.map { URLs.resolve($0, against: r.base) }) }

        // Every field is computed into a constant and the item is built once at the end: filling
        // a default `Item()` field by field made the optimizer copy and destroy the whole item
        // (~15 strings, a retain or release each) twice per item.
        // The fallbacks between elements that say the same thing are spelled out here, in order.
        let guid = line(nonEmpty(r.guid?.trimmingWhitespace()) ?? nonEmpty(r.rdfAbout?.trimmingWhitespace()))
        let rawTitle = r.title.flatMap(nonBlank) ?? r.dcTitle.flatMap(nonBlank) ?? r.mediaTitle
        let title = line((r.titleIsHTML ? rawTitle.flatMap(TextCleaner.plainText(fromHTML:)) : rawTitle.flatMap(TextCleaner.collapse))) ?? ""
        // Dates, durations and numbers were read as their elements ended (`RawItem.apply`).
        // Published: pubDate (Atom published/issued, dcterms:issued), else dc:date, else
        // dcterms:created, else the last update (Atom updated/modified, dcterms:modified).
        let published = r.published.value ?? r.dcDate.value ?? r.created.value ?? r.updated.value
        let updated = r.updated.value
        let duration = r.duration.value
        // Chained rather than `[a, b, c].lazy.compactMap`: no array per item.
        let author = line(r.itunesAuthor.flatMap(TextCleaner.collapse) ?? r.dcCreator.flatMap(TextCleaner.collapse)
            ?? r.author.flatMap(TextCleaner.collapse))
        let description = text(r.description.flatMap(TextCleaner.plainText(fromHTML:)) ?? r.summary.flatMap(TextCleaner.plainText(fromHTML:))
            ?? r.content.flatMap(TextCleaner.plainText(fromHTML:)) ?? r.dcDescription.flatMap(TextCleaner.plainText(fromHTML:))
            ?? r.itunesSubtitle.flatMap(TextCleaner.plainText(fromHTML:)) ?? r.mediaDescription.flatMap(TextCleaner.plainText(fromHTML:)))
        let thumbnail = url(r.thumbnail) ?? url(r.itunesImage)
        let episode = r.episode.value ?? r.podcastEpisode.value
        let season = r.season.value ?? r.podcastSeason.value
        let episodeType = line(nonEmpty(r.episodeType?.trimmingWhitespace().lowercased()))
        let explicit = r.explicit.flatMap(explicit)
        let chaptersURL = url(r.chaptersURL)
        let transcriptURL = url(r.transcriptURL)
        let persons = r.persons.isEmpty ? [] : r.persons.map { p in
            Person(name: FieldLimits.cut(p.name, to: FieldLimits.maxLineBytes), role: line(nonEmpty(p.role?.trimmingWhitespace())),
                   href: url(p.href), image: url(p.image))
        }
        let funding = r.funding.isEmpty ? [] : r.funding.compactMap { l in url(l.url).map { Link(url: $0, title: line(l.title)) } }
        let views = r.views.flatMap { Int64($0.trimmingWhitespace()) }
        let liveStatus = line(nonEmpty(r.liveStatus?.trimmingWhitespace().lowercased()))

        let id: String
        let page: String?
        let enclosure: Enclosure?
        let isShort: Bool
        if let videoID = line(nonEmpty(r.videoID?.trimmingWhitespace()) ?? youTubeID(fromAtomID: guid)) {
            // YouTube: the video id is the identity; the page is the watch or shorts URL.
            id = videoID
            let watch = url(r.link) ?? "https://www.youtube.com/watch?v=\(videoID)"
            page = watch
            enclosure = nil
            isShort = shortsFeed() || watch.containsBytes("/shorts/")
        } else {
            if let encURL = url(r.enclosureURL) {
                enclosure = Enclosure(url: encURL, type: line(nonEmpty(r.enclosureType?.trimmingWhitespace())),
                                      length: length(r.enclosureLength))
            } else if let media = r.mediaContent, let mediaURL = url(media.url) {
                enclosure = Enclosure(url: mediaURL, type: line(nonEmpty(media.type)), length: length(media.length))
            } else {
                enclosure = nil
            }
            // The web page: the link, else a guid that is a permalink.
            if let link = url(r.link) {
                page = link
            } else if let guid, r.guidIsPermaLink || r.isAtom, URLs.isHTTP(guid) {
                page = keep(URLs.resolve(guid, against: r.base))
            } else {
                page = nil
            }
            isShort = page?.containsBytes("/shorts/") == true
            id = ItemIdentity.fallback(guid: guid, enclosureURL: enclosure?.url, link: page,
                                       title: title, published: published)
        }
        // The element the plain-text description came from, by the same fallbacks, kept as it
        // is when it holds a tag: sanitizing waits until one item's notes are shown (parsing
        // and ingest pay only for keeping them; docs/reliability.md, "Show notes").
        let notesSource = r.description ?? r.summary ?? r.content ?? r.dcDescription ?? r.itunesSubtitle ?? r.mediaDescription
        let notesMarkup = notesSource.flatMap { NotesSanitizer.hasMarkup($0) ? FieldLimits.cut($0, to: FieldLimits.maxNotesHTMLBytes) : nil }
        return Item(id: id, guid: guid, title: title, url: page, published: published, updated: updated,
                    duration: duration, enclosure: enclosure, thumbnail: thumbnail, author: author,
                    description: description, views: views, isShort: isShort, episode: episode, season: season,
                    episodeType: episodeType, explicit: explicit, chaptersURL: chaptersURL,
                    transcriptURL: transcriptURL, persons: persons, funding: funding, liveStatus: liveStatus,
                    notesMarkup: notesMarkup)
    }

    static func feed(from c: RawChannel, kind: Feed.Kind) -> Feed {
        func url(_ s: String?) -> String? { keep(s.map { URLs.resolve($0, against: c.base) }) }
        var feed = Feed(kind: kind)
        // The fallbacks, in order (docs/cli.md, "Parsing").
        feed.title = line((c.title ?? c.dcTitle).flatMap(TextCleaner.plainText(fromHTML:))) ?? ""
        feed.link = url(c.link)
        feed.description = text((c.description ?? c.itunesSummary ?? c.dcDescription ?? c.itunesSubtitle ?? c.googleplayDescription)
            .flatMap(TextCleaner.plainText(fromHTML:)))
        feed.author = line([c.itunesAuthor, c.dcCreator, c.author, c.webMaster, c.ownerName, c.googleplayAuthor]
            .lazy.compactMap { $0.flatMap(TextCleaner.collapse) }.first)
        feed.image = url(c.itunesImage) ?? url(c.image) ?? url(c.googleplayImage)
        feed.language = line(languageTag(c.language))
        feed.selfURL = url(c.selfURL)
        feed.nextPage = url(c.nextPage)
        feed.funding = c.funding.compactMap { l in url(l.url).map { Link(url: $0, title: line(l.title)) } }
        if kind == .youtube {
            // The feed-level yt:channelId lacks the `UC` prefix the entries carry.
            if let id = line(nonEmpty(c.entryChannelID?.trimmingWhitespace())) {
                feed.channelID = id
            } else if let id = line(nonEmpty(c.ytChannelID?.trimmingWhitespace())) {
                feed.channelID = id.hasPrefix("UC") ? id : "UC" + id
            }
        }
        return feed
    }

    /// A URL as stored: http(s) or relative, at most `FieldLimits.maxURLBytes` (see
    /// `URLs.isKeepable`; a cut URL leads nowhere, so a longer one is dropped).
    static func keep(_ s: String?) -> String? {
        guard let s, !s.isEmpty, s.utf8.count <= FieldLimits.maxURLBytes, URLs.isKeepable(s) else { return nil }
        return s
    }

    /// One-line text (titles, names, ids) cut to `FieldLimits.maxLineBytes`, ending with the marker.
    static func line(_ s: String?) -> String? { s.map { FieldLimits.cut($0, to: FieldLimits.maxLineBytes) } }

    /// Descriptions cut to `FieldLimits.maxTextBytes`, ending with the marker.
    static func text(_ s: String?) -> String? { s.map { FieldLimits.cut($0, to: FieldLimits.maxTextBytes) } }

    /// A language tag with BCP 47's separator: `en_US` (a POSIX locale name, common in feeds)
    /// → `en-US`. The case is kept as written (`en-us` is as valid as `en-US`).
    static func languageTag(_ s: String?) -> String? {
        guard let t = nonEmpty(s?.trimmingWhitespace()) else { return nil }
        guard t.utf8.contains(UInt8(ascii: "_")) else { return t }
        return String(t.map { $0 == "_" ? "-" : $0 })
    }

    static func nonEmpty(_ s: String?) -> String? {
        guard let s, !s.isEmpty else { return nil }
        return s
    }

    private static func nonBlank(_ s: String) -> String? { s.trimmingWhitespace().isEmpty ? nil : s }

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

    /// `yt:video:ID` (the entry's Atom id) → `ID`.
    private static func youTubeID(fromAtomID id: String?) -> String? {
        guard let id, id.hasPrefix("yt:video:") else { return nil }
        return nonEmpty(String(id.dropFirst("yt:video:".count)))
    }
}
