/// A named, ordered list of items (`collection list`).
public struct CollectionSummary: Sendable, Equatable, Encodable {
    public var name: String
    public var items: Int
    public var createdAt: Int64

    public init(name: String, items: Int, createdAt: Int64) {
        self.name = name; self.items = items; self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey { case name, items, createdAt = "created_at" }
}
