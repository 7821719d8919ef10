/// One page of a list: `page` counts from 1, `perPage` entries each. The only way to make one is
/// `init(page:perPage:)`, which refuses a page or a size below 1, so whatever holds one (the API's
/// routes, the store's queries) trusts it; and nothing derived from it can overflow, however far
/// the page (a client may ask for page `Int.max`): such a page is past the end of any list.
/// The API's cap on `perPage` (`APILimits.maxPerPage`) is checked where the API reads it.
public struct PageRequest: Sendable, Hashable {
    public let page: Int
    public let perPage: Int

    /// Why a page cannot be made.
    public enum Invalid: Error, Sendable, Equatable {
        case page(Int)
        case perPage(Int)
    }

    public init(page: Int = 1, perPage: Int) throws(Invalid) {
        guard page >= 1 else { throw .page(page) }
        guard perPage >= 1 else { throw .perPage(perPage) }
        self.page = page; self.perPage = perPage
    }

    /// The first page of `perPage` entries, for a size the caller states as a constant.
    public static func first(_ perPage: Int) -> PageRequest {
        PageRequest(checkedPage: 1, perPage: max(1, perPage))
    }

    private init(checkedPage page: Int, perPage: Int) { self.page = page; self.perPage = perPage }

    /// Entries before this page: `(page - 1) × perPage`, or `Int.max` when that does not fit (a
    /// page that far is past the end of any list).
    public var offset: Int {
        let (offset, overflow) = (page - 1).multipliedReportingOverflow(by: perPage)
        return overflow ? Int.max : offset
    }

    /// Whether the page starts past the end of every list (SQLite's `LIMIT … OFFSET` takes a
    /// 64-bit offset, but `offset + perPage` would not fit).
    public var isPastAnyEnd: Bool { offset > Int.max - perPage }

    /// Whether entries follow this page in a list of `total`, when the page showed `shown`.
    public func hasMore(shown: Int, total: Int) -> Bool {
        let before = offset
        guard before < total else { return false }
        let (seen, overflow) = before.addingReportingOverflow(shown)
        return !overflow && seen < total
    }

    /// This page of `all`.
    public func slice<C: RandomAccessCollection>(of all: C) -> C.SubSequence where C.Index == Int {
        let start = all.startIndex + min(offset, all.count)
        let end = start + min(perPage, all.endIndex - start)
        return all[start..<end]
    }
}
