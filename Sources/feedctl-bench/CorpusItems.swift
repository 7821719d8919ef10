import FeedModel
import Foundation

/// The generated corpus's ground truth (`manifest.json`) as model values: one channel per file,
/// items with the fields the parsers produce. Descriptions are not in the manifest; each item
/// gets plain-text notes of the corpus's typical size so that rows weigh what parsed ones do.
struct CorpusFeed {
    var platform: Platform
    var name: String
    var sourceURL: String
    var feedURL: String
    var items: [Item]
}

enum CorpusItems {
    static func load(_ dir: String) throws -> [CorpusFeed] {
        let path = (dir as NSString).appendingPathComponent("manifest.json")
        guard let data = FileManager.default.contents(atPath: path),
              let manifest = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let files = manifest["files"] as? [[String: Any]] else {
            throw BenchError("can't read corpus manifest \(path) (generate it with gen_corpus.py)")
        }
        // The default corpus: bench/parse adds big/huge.xml (one 20,000-item stress feed) to the
        // same directory, which must not change what this bench measures.
        return files.filter { ($0["path"] as? String)?.hasPrefix("big/") != true }.compactMap(feed(from:))
    }

    private static func feed(from file: [String: Any]) -> CorpusFeed? {
        guard let kind = file["kind"] as? String, let platform = Platform(rawValue: kind),
              let path = file["path"] as? String, let channel = file["channel"] as? [String: Any],
              let rawItems = file["items"] as? [[String: Any]] else { return nil }
        let name = (channel["title"] as? String) ?? path
        let source = (channel["url"] as? String) ?? (channel["link"] as? String) ?? "https://example.com/\(path)"
        let feedURL = (channel["self_url"] as? String) ?? (channel["listing_url"] as? String) ?? source
        let noteLength = platform == .podcast ? 600 : platform == .youtube ? 300 : 0
        let items = rawItems.compactMap { item(from: $0, noteLength: noteLength) }
        // The corpus has a few feeds sharing a self URL; keep feed URLs unique like real ones.
        return CorpusFeed(platform: platform, name: name, sourceURL: source, feedURL: feedURL + "#" + path, items: items)
    }

    private static func item(from raw: [String: Any], noteLength: Int) -> Item? {
        guard let id = raw["id"] as? String, let title = raw["title"] as? String else { return nil }
        var item = Item(id: id, guid: raw["guid"] as? String, title: title, url: raw["url"] as? String,
                        published: (raw["published"] as? NSNumber)?.int64Value,
                        updated: (raw["updated"] as? NSNumber)?.int64Value,
                        duration: (raw["duration"] as? NSNumber)?.intValue,
                        thumbnail: raw["thumbnail"] as? String,
                        views: (raw["views"] as? NSNumber)?.int64Value,
                        isShort: (raw["is_short"] as? Bool) ?? false,
                        episode: (raw["episode"] as? NSNumber)?.intValue, season: (raw["season"] as? NSNumber)?.intValue)
        if let url = raw["enclosure_url"] as? String {
            item.enclosure = Enclosure(url: url, type: raw["enclosure_type"] as? String,
                                       length: (raw["enclosure_length"] as? NSNumber)?.int64Value)
        }
        if noteLength > 0 {
            item.description = String(String(repeating: title + ". In this episode we talk about it at length. ", count: 20)
                .prefix(noteLength))
            if item.enclosure != nil, let description = item.description {
                // Podcast notes with markup keep it too (`Item.notesMarkup`), in the shape the
                // corpus's feeds write it.
                item.notesMarkup = "<p>\(description)</p><p>Guest: <a href=\"https://example.org/people/\(id)\">\(title)</a> &amp; friends.</p>"
            }
        }
        return item
    }
}
