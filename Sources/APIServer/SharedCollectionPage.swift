import FeedIngest
import FeedModel
import FeedParsing
import FeedText
import Hummingbird
import LibraryStore

/// A published collection's page (`GET /shared/{token}`): plain HTML rendered here, no script,
/// every text and URL from the collection escaped (`XMLText`), a link or a player only for an
/// http(s) URL. Each item plays in the page (`<audio>`, its enclosure). The policy allows
/// nothing but the feeds' pictures and media, and the page's own style; no `Referer` leaves it
/// (the link's token would go with it to every picture's and enclosure's host).
enum SharedCollectionPage {
    static let contentSecurityPolicy = "default-src 'none'; img-src https: http: data:; media-src https: http:; style-src 'unsafe-inline'; "
        + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    static func response(_ status: HTTPResponse.Status, _ html: String) -> Response {
        var headers = SharedCollectionRoutes.headers
        headers[.contentType] = "text/html; charset=utf-8"
        headers[WebApp.cspHeader] = contentSecurityPolicy
        headers[WebApp.referrerHeader] = "no-referrer"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    static func html(_ collection: SharedCollection, links: ShareLinks) -> String {
        let e = XMLText.escaped
        let count = collection.items.count == 1 ? "1 item" : "\(collection.items.count) items"
        var items = ""
        for item in collection.items {
            let title = SharedCollectionDocument.webURL(item.url).map { "<a href=\"\(e($0))\" rel=\"noopener noreferrer nofollow\">\(e(item.title))</a>" }
                ?? e(item.title)
            let picture = SharedCollectionDocument.webURL(item.thumbnail).map { "<img src=\"\(e($0))\" alt=\"\" loading=\"lazy\" width=\"64\" height=\"64\">" } ?? ""
            let facts = [item.channelName, item.published.map(day), item.duration.map { FeedItemResponse.formatted($0) }]
                .compactMap { $0 }.filter { !$0.isEmpty }.map(e).joined(separator: " · ")
            let player = SharedCollectionDocument.webURL(item.enclosureURL)
                .map { "<audio controls preload=\"none\" src=\"\(e($0))\" aria-label=\"Play \(e(item.title))\"></audio>" } ?? ""
            items += "<li>\(picture)<div><h2>\(title)</h2><p class=\"meta\">\(facts)</p>\(player)</div></li>\n"
        }
        let description = collection.description.map { "<p>\(e($0))</p>\n" } ?? ""
        return page(title: "\(collection.name) · shared by \(collection.ownerName)", head: """
            <link rel="alternate" type="application/rss+xml" title="\(e(collection.name))" href="\(e(links.rssURL))">
            <link rel="alternate" type="application/json" href="\(e(links.jsonURL))">
            """, body: """
            <h1>\(e(collection.name))</h1>
            <p class="meta">A collection shared by \(e(collection.ownerName)) · \(count) · updated \(e(day(collection.updatedAt)))</p>
            \(description)<p class="links"><a href="\(e(links.rssURL))">Podcast feed (RSS)</a> · <a href="\(e(links.jsonURL))">JSON</a></p>
            <p class="meta">Subscribe to the feed in any podcast app, or follow this collection in feedctl: paste this page's address \
            under Collections → Followed, or run <code>feedctl follow \(e(links.url))</code>.</p>
            <ol class="items">
            \(items)</ol>
            """)
    }

    static let withdrawn = page(title: "Withdrawn", head: "", body: """
        <h1>This collection was withdrawn</h1>
        <p>Its owner no longer shares it: the link will not work again. If they publish it anew, it gets a new link.</p>
        """)

    static let unknown = page(title: "Not found", head: "", body: """
        <h1>No collection is published at this link</h1>
        <p>Check that the link was copied whole.</p>
        """)

    private static func day(_ seconds: Int64) -> String { String(WireDate.string(seconds).prefix(10)) }

    private static func page(title: String, head: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="robots" content="noindex, nofollow">
        <meta name="color-scheme" content="light dark">
        <title>\(XMLText.escaped(title))</title>
        \(head)
        <style>
        body { font: 16px/1.5 system-ui, sans-serif; max-width: 46rem; margin: 0 auto; padding: 1rem; }
        .meta { color: GrayText; margin: .25rem 0; }
        ol.items { list-style: none; padding: 0; }
        ol.items li { display: flex; gap: .75rem; padding: .75rem 0; border-top: 1px solid #8884; }
        ol.items img { flex: none; border-radius: .25rem; object-fit: cover; }
        ol.items h2 { font-size: 1rem; margin: 0; }
        audio { width: 100%; margin-top: .25rem; }
        </style>
        </head>
        <body>
        <main>
        \(body)
        </main>
        </body>
        </html>

        """
    }
}

/// A published collection as a podcast feed (RSS 2.0 with the iTunes tags podcast apps read),
/// every text escaped. Items keep the collection's order; each has its enclosure when it has
/// one (a video without one is a link). `itunes:block` keeps directories from listing it: its
/// link is shared by hand.
enum SharedCollectionRSS {
    static func document(_ collection: SharedCollection, links: ShareLinks) -> String {
        let e = XMLText.escaped
        var lines = [
            #"<?xml version="1.0" encoding="UTF-8"?>"#,
            #"<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd" xmlns:atom="http://www.w3.org/2005/Atom">"#,
            "<channel>",
            "<title>\(e(collection.name))</title>",
            "<link>\(e(links.url))</link>",
            "<description>\(e(collection.description ?? "A collection shared by \(collection.ownerName)"))</description>",
            #"<atom:link href="\#(e(links.rssURL))" rel="self" type="application/rss+xml"/>"#,
            "<generator>feedctl</generator>",
            "<itunes:author>\(e(collection.ownerName))</itunes:author>",
            "<itunes:block>Yes</itunes:block>",
        ]
        if let date = UTCDate.rfc822(collection.updatedAt) { lines.append("<lastBuildDate>\(date)</lastBuildDate>") }
        if let cover = SharedCollectionDocument.webURL(collection.coverURL) {
            lines.append(#"<itunes:image href="\#(e(cover))"/>"#)
            lines.append("<image><url>\(e(cover))</url><title>\(e(collection.name))</title><link>\(e(links.url))</link></image>")
        }
        for item in collection.items {
            lines.append("<item>")
            lines.append("<title>\(e(item.title))</title>")
            if let url = SharedCollectionDocument.webURL(item.url) { lines.append("<link>\(e(url))</link>") }
            lines.append(#"<guid isPermaLink="false">\#(e(item.guid))</guid>"#)
            if let published = item.published, let date = UTCDate.rfc822(published) { lines.append("<pubDate>\(date)</pubDate>") }
            lines.append("<description>\(e("From \(item.channelName)"))</description>")
            lines.append("<itunes:author>\(e(item.channelName))</itunes:author>")
            if let enclosure = SharedCollectionDocument.webURL(item.enclosureURL) {
                let type = item.enclosureType.flatMap { $0.isEmpty ? nil : $0 } ?? mediaType(enclosure)
                lines.append(#"<enclosure url="\#(e(enclosure))" length="\#(item.enclosureLength ?? 0)" type="\#(e(type))"/>"#)
            }
            if let duration = item.duration { lines.append("<itunes:duration>\(duration)</itunes:duration>") }
            if let picture = SharedCollectionDocument.webURL(item.thumbnail) { lines.append(#"<itunes:image href="\#(e(picture))"/>"#) }
            lines.append("</item>")
        }
        lines += ["</channel>", "</rss>", ""]
        return lines.joined(separator: "\n")
    }

    /// An enclosure's type from its file name, when its feed gave none (RSS requires one).
    static func mediaType(_ url: String) -> String {
        let path = url.split(separator: "?").first.map(String.init)?.lowercased() ?? ""
        if path.hasSuffix(".m4a") || path.hasSuffix(".aac") { return "audio/mp4" }
        if path.hasSuffix(".ogg") || path.hasSuffix(".opus") || path.hasSuffix(".oga") { return "audio/ogg" }
        if path.hasSuffix(".mp4") || path.hasSuffix(".m4v") { return "video/mp4" }
        if path.hasSuffix(".webm") { return "audio/webm" }
        if path.hasSuffix(".flac") { return "audio/flac" }
        return "audio/mpeg"
    }
}
