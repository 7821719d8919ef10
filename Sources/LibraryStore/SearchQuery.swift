import FeedModel

/// One page of search results: the words a person typed, `feed`'s filters, and the page.
/// The text is whatever was typed; the store reads it as plain words (`SearchRule`), never as
/// query syntax, so quotes, `AND`, `*`, `-` or a stray parenthesis cannot make it fail.
public struct SearchQuery: Sendable, Equatable {
    public var text: String
    public var filter: FeedFilter
    public var page: PageRequest

    public init(text: String, filter: FeedFilter = FeedFilter(), page: PageRequest = .first(20)) {
        self.text = text; self.filter = filter; self.page = page
    }
}
