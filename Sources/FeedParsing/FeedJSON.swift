import FeedModel

/// The `feedctl parse --json` contract (docs/cli.md): keys exactly as documented, null for missing
/// values, Unix seconds for dates. Written piecewise so a caller can stream: `begin`, one
/// `item` per item as it arrives, then `end` with the channel fields (JSON key order is not
/// significant).
public enum FeedJSON {
    /// The opening of the document, up to the items array.
    public static func begin(into out: inout [UInt8]) {
        out.append(contentsOf: "{\"items\": [".utf8)
    }

    /// One item; `index` is its position (a comma precedes all but the first).
    public static func item(_ item: Item, index: Int, into out: inout [UInt8]) {
        func most(_ s: String?) -> Int { JSONWriter.worstCase(s) }
        // Keys and punctuation, up to 8 numbers, then the strings.
        let bound = 640 + 24 * 8 + most(item.id) + most(item.guid) + most(item.title) + most(item.url)
            + most(item.enclosure?.url) + most(item.enclosure?.type) + most(item.thumbnail) + most(item.author)
            + most(item.description) + most(item.chaptersURL) + most(item.transcriptURL)
            + most(item.episodeType) + most(item.liveStatus) + worstCase(item.persons) + worstCase(item.funding)
        JSONWriter.reserving(bound, in: &out) { w in
            if index > 0 { w.put(byte: 44) }
            // Each key is written with its punctuation in one literal.
            w.put("\n{\"id\": "); w.quote(item.id)
            w.put(", \"guid\": "); w.value(item.guid)
            w.put(", \"title\": "); w.quote(item.title)
            w.put(", \"url\": "); w.value(item.url)
            w.put(", \"published\": "); w.value(item.published)
            w.put(", \"updated\": "); w.value(item.updated)
            w.put(", \"duration\": "); w.value(item.duration.map(Int64.init))
            if let e = item.enclosure {
                w.put(", \"enclosure\": {\"url\": "); w.quote(e.url)
                w.put(", \"type\": "); w.value(e.type)
                w.put(", \"length\": "); w.value(e.length)
                w.put(byte: UInt8(ascii: "}"))
            } else {
                w.put(", \"enclosure\": null")
            }
            w.put(", \"thumbnail\": "); w.value(item.thumbnail)
            w.put(", \"author\": "); w.value(item.author)
            w.put(", \"description\": "); w.value(item.description)
            w.put(", \"views\": "); w.value(item.views)
            w.put(item.isShort ? ", \"is_short\": true" : ", \"is_short\": false")
            w.put(", \"episode\": "); w.value(item.episode.map(Int64.init))
            w.put(", \"season\": "); w.value(item.season.map(Int64.init))
            w.put(", \"chapters_url\": "); w.value(item.chaptersURL)
            w.put(", \"transcript_url\": "); w.value(item.transcriptURL)
            w.put(", \"explicit\": "); w.value(item.explicit)
            w.put(", \"episode_type\": "); w.value(item.episodeType)
            w.put(", \"live_status\": "); w.value(item.liveStatus)
            w.put(", \"persons\": "); w.persons(item.persons)
            w.put(", \"funding\": "); w.links(item.funding)
            w.put(byte: UInt8(ascii: "}"))
        }
    }

    /// Closes the items array and writes the channel fields.
    public static func end(_ feed: Feed, into out: inout [UInt8]) {
        func most(_ s: String?) -> Int { JSONWriter.worstCase(s) }
        let bound = 256 + most(feed.kind.rawValue) + most(feed.title) + most(feed.link) + most(feed.description)
            + most(feed.author) + most(feed.image) + most(feed.language) + most(feed.selfURL) + most(feed.nextPage)
            + worstCase(feed.funding) + feed.warnings.reduce(0) { $0 + most($1) + 2 }
        JSONWriter.reserving(bound, in: &out) { w in
            w.put("\n], \"kind\": "); w.quote(feed.kind.rawValue)
            w.put(", \"title\": "); w.quote(feed.title)
            w.put(", \"link\": "); w.value(feed.link)
            w.put(", \"description\": "); w.value(feed.description)
            w.put(", \"author\": "); w.value(feed.author)
            w.put(", \"image\": "); w.value(feed.image)
            w.put(", \"language\": "); w.value(feed.language)
            w.put(", \"self_url\": "); w.value(feed.selfURL)
            w.put(", \"next_page\": "); w.value(feed.nextPage)
            w.put(", \"funding\": "); w.links(feed.funding)
            w.put(", \"warnings\": [")
            for (i, warning) in feed.warnings.enumerated() {
                if i > 0 { w.put(", ") }
                w.quote(warning)
            }
            w.put("]}\n")
        }
    }

    private static func worstCase(_ persons: [Person]) -> Int {
        persons.reduce(2) { n, p in
            n + 64 + JSONWriter.worstCase(p.name) + JSONWriter.worstCase(p.role) + JSONWriter.worstCase(p.href)
                + JSONWriter.worstCase(p.image)
        }
    }

    private static func worstCase(_ links: [Link]) -> Int {
        links.reduce(2) { n, l in n + 32 + JSONWriter.worstCase(l.url) + JSONWriter.worstCase(l.title) }
    }

    /// The whole document for a feed whose items are in memory.
    public static func document(_ feed: Feed) -> String {
        var out: [UInt8] = []
        begin(into: &out)
        for (i, item) in feed.items.enumerated() { self.item(item, index: i, into: &out) }
        end(feed, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// A JSON string literal: quotes, backslashes and control characters escaped; other
    /// characters stay UTF-8.
    public static func quote(_ s: String, into out: inout [UInt8]) {
        JSONWriter.reserving(JSONWriter.worstCase(s), in: &out) { $0.quote(s) }
    }
}

extension JSONWriter {
    mutating func value(_ v: Bool?) {
        switch v {
        case true?: put("true")
        case false?: put("false")
        case nil: put("null")
        }
    }

    /// `[{"name": str, "role": str|null, "href": str|null, "image": str|null}]`
    mutating func persons(_ persons: [Person]) {
        put(byte: UInt8(ascii: "["))
        for (i, p) in persons.enumerated() {
            put(i == 0 ? "{\"name\": " : ", {\"name\": "); quote(p.name)
            put(", \"role\": "); value(p.role)
            put(", \"href\": "); value(p.href)
            put(", \"image\": "); value(p.image)
            put(byte: UInt8(ascii: "}"))
        }
        put(byte: UInt8(ascii: "]"))
    }

    /// `[{"url": str, "title": str|null}]`
    mutating func links(_ links: [Link]) {
        put(byte: UInt8(ascii: "["))
        for (i, l) in links.enumerated() {
            put(i == 0 ? "{\"url\": " : ", {\"url\": "); quote(l.url)
            put(", \"title\": "); value(l.title)
            put(byte: UInt8(ascii: "}"))
        }
        put(byte: UInt8(ascii: "]"))
    }
}
