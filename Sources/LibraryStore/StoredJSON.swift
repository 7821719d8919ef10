import FeedModel
// The one file of LibraryStore that uses Foundation (its JSON coders), and only inside: nothing
// of Foundation is in the module's interface (docs/architecture.md's import table says so).
internal import Foundation

/// The library's list columns (`channels.warnings`, `funding`; `items.persons`, `funding`): JSON
/// arrays, NULL when empty, so a clean feed stores nothing and the columns' CHECKs hold. Both
/// stores write and read them through this, so the text is the same on every engine (`db copy`
/// compares the rows' checksums across engines).
public enum StoredJSON {
    public static func encode<T: Encodable>(_ values: [T]) -> String? {
        guard !values.isEmpty, let data = try? encoder.encode(values) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// Keys sorted: the same list is always the same text (a dictionary's order differs from one
    /// encoding to the next), so a feed read again compares equal to what was stored and its
    /// items are not rewritten.
    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }

    /// The stored list; empty for NULL, and for text that is not such a list (the CHECK keeps
    /// it from being written, so only a hand-edited library has it).
    public static func decode<T: Decodable>(_ type: T.Type, _ text: String?) -> [T] {
        guard let text, let values = try? JSONDecoder().decode([T].self, from: Data(text.utf8)) else { return [] }
        return values
    }
}
