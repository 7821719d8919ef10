import FeedIngest
import FeedModel
import Foundation
import LibraryStore
import Testing

/// A published collection's link as people paste it, and its JSON as another server sends it
/// (untrusted): read once, refused with one line when it is no such thing.
@Suite struct SharedCollectionLinkTests {
    static let token = String(repeating: "0a", count: SharingRule.tokenCharacters / 2)

    private func link(_ text: String) -> SharedCollectionLink? {
        if case .success(let link) = SharedCollectionLink.parse(text) { return link }
        return nil
    }

    @Test func everyFormOfTheLinkNamesTheSameCollection() {
        let token = Self.token
        for text in ["https://feeds.example.org/shared/\(token)", "https://feeds.example.org/shared/\(token)/",
                     "https://feeds.example.org/shared/\(token)/feed.xml", "https://feeds.example.org/api/shared/\(token)",
                     "  https://feeds.example.org/shared/\(token)?utm=x#top  "] {
            let parsed = link(text)
            #expect(parsed?.token.text == token, "\(text)")
            #expect(parsed?.jsonURL == "https://feeds.example.org/api/shared/\(token)", "\(text)")
            #expect(parsed?.text == text.trimmingCharacters(in: .whitespaces))
        }
        // Under a reverse proxy's prefix, on a port, on IPv6.
        #expect(link("http://example.org:8080/feedctl/shared/\(token)")?.jsonURL == "http://example.org:8080/feedctl/api/shared/\(token)")
        #expect(link("http://example.org/feedctl/api/shared/\(token)")?.jsonURL == "http://example.org/feedctl/api/shared/\(token)")
        #expect(link("http://[::1]:9/shared/\(token)")?.jsonURL == "http://[::1]:9/api/shared/\(token)")
        // A path alone names this library's collection: there is no other server to read.
        #expect(link("/shared/\(token)")?.token.text == token)
        #expect(link("/shared/\(token)")?.jsonURL == nil)
    }

    @Test func whatIsNoLinkIsRefusedInOneLine() {
        let token = Self.token
        for text in ["", "https://example.org/feed.xml", "https://example.org/shared/\(token.dropLast())",
                     "https://example.org/shared/\(token.uppercased())", "https://example.org/shared/\(token)/other",
                     "ftp://example.org/shared/\(token)", "javascript:alert(1)//shared/\(token)", "shared/\(token)",
                     "https://example.org/shared/\(token) x", "https://example.org/shared/" + String(repeating: "a", count: 9_000)] {
            guard case .failure(let error) = SharedCollectionLink.parse(text) else {
                Issue.record("\(text.prefix(80)) was read as a link")
                continue
            }
            #expect(error.description.contains("is not a link of a published collection"))
            #expect(!error.description.contains("\n"))
        }
    }

    /// Another server's JSON: only http(s) URLs are kept (a `javascript:` link must not reach a
    /// page), text is one line, dates are read, and what is too big or nameless is refused.
    @Test func anotherServersJSONIsReadAsUntrusted() throws {
        let json = """
            {"name": "  Mix\\u0007  ", "description": "", "cover_url": "javascript:alert(1)", "owner_name": "dora",
             "updated_at": "2026-11-20T00:00:00Z", "url": null, "rss_url": null, "json_url": null, "item_count": 2, "items": [
              {"title": "One", "channel_name": "Show", "platform": "podcast", "published_at": "2026-11-19T10:00:00Z",
               "duration_seconds": 61, "audio_url": "https://cdn.example/1.mp3", "audio_type": "audio/mpeg", "audio_length": 9,
               "thumbnail_url": "data:image/png;base64,AAAA", "url": "https://example/1", "guid": "g1", "added_at": "2026-11-20T00:00:00Z"},
              {"title": "Two", "channel_name": "Show", "platform": "tiktok", "published_at": "not a date", "duration_seconds": -5,
               "audio_url": "file:///etc/passwd", "audio_type": null, "audio_length": null, "thumbnail_url": null, "url": null,
               "guid": "", "added_at": "2026-11-20T00:00:00Z"}]}
            """
        let collection = try SharedCollectionDocument.read(Array(json.utf8), from: "https://x/api/shared/t")
        #expect(collection.name == "Mix")
        #expect(collection.description == nil)
        #expect(collection.coverURL == nil)
        #expect(collection.ownerName == "dora")
        #expect(collection.updatedAt == 1_795_132_800)
        #expect(collection.items == [
            SharedItem(title: "One", channelName: "Show", platform: .podcast, published: 1_795_082_400, duration: 61,
                       enclosureURL: "https://cdn.example/1.mp3", enclosureType: "audio/mpeg", enclosureLength: 9, thumbnail: nil,
                       url: "https://example/1", guid: "g1", addedAt: 1_795_132_800),
            SharedItem(title: "Two", channelName: "Show", platform: nil, published: nil, duration: nil, enclosureURL: nil, enclosureType: nil,
                       enclosureLength: nil, thumbnail: nil, url: nil, guid: "item-2", addedAt: 1_795_132_800),
        ])

        func refusal(_ body: String) -> String? {
            do { _ = try SharedCollectionDocument.read(Array(body.utf8), from: "https://x/api/shared/t"); return nil } catch { return error.description }
        }
        #expect(refusal("<html>not json</html>")?.hasPrefix("https://x/api/shared/t: not a published collection's JSON") == true)
        #expect(refusal(#"{"name": "x"}"#)?.contains("not a published collection's JSON (no ") == true)
        let nameless = #"{"name": " ", "owner_name": "d", "updated_at": "2026-11-20T00:00:00Z", "item_count": 0, "items": []}"#
        #expect(refusal(nameless) == "https://x/api/shared/t: the collection has no name")
        let item = #"{"title": "t", "channel_name": "c", "guid": "g", "added_at": "2026-11-20T00:00:00Z"}"#
        let huge = #"{"name": "x", "owner_name": "d", "updated_at": "2026-11-20T00:00:00Z", "item_count": 0, "items": ["#
            + Array(repeating: item, count: SharingRule.maxItems + 1).joined(separator: ",") + "]}"
        #expect(refusal(huge)?.contains("more than the \(SharingRule.maxItems) a follower keeps") == true)
    }
}
