import Foundation
@testable import FeedIngest

/// A fresh directory under the system temp dir, removed when the value is dropped.
final class TempDir {
    let path: String
    init() {
        path = (NSTemporaryDirectory() as NSString).appendingPathComponent("feedctl-store-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }
    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// A library in a temp dir, kept alive with it.
struct TestLibrary {
    let dir = TempDir()
    let library: Library
    init() throws {
        library = try Library(path: dir.file("library.sqlite"))
    }
}

extension Library {
    /// Adds a channel whose feed URL is derived from `name`.
    func addTestChannel(_ name: String, platform: Platform = .podcast, now: Int64 = 1000) throws -> Int64 {
        try addChannel(platform: platform, sourceURL: "https://example.com/\(name)",
                       feedURL: "https://example.com/\(name).xml", name: name, now: now).id
    }

    /// The library id of the item the parser called `itemID`.
    func id(of itemID: String) throws -> Int64 {
        try read { db in
            guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM items WHERE item_id = ?", arguments: [itemID]) else {
                throw LibraryError.invalid("test: no item_id \(itemID)")
            }
            return id
        }
    }
}

func item(_ id: String, published: Int64? = nil, duration: Int? = nil, isShort: Bool = false,
          title: String? = nil, views: Int64? = nil) -> Item {
    Item(id: id, title: title ?? "Title \(id)", url: "https://example.com/\(id)", published: published,
         duration: duration, views: views, isShort: isShort)
}
