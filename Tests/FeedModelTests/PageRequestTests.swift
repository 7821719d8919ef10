import FeedModel
import Testing

/// `PageRequest`: the one paging rule (the API's feed, history and subscriptions, the store's
/// queries, the CLI's `--page`): valid when made, and nothing derived from it overflows.
@Suite struct PageRequestTests {
    @Test func onlyValidPagesCanBeMade() throws {
        #expect(throws: PageRequest.Invalid.page(0)) { try PageRequest(page: 0, perPage: 10) }
        #expect(throws: PageRequest.Invalid.perPage(0)) { try PageRequest(page: 1, perPage: 0) }
        #expect(throws: PageRequest.Invalid.page(Int.min)) { try PageRequest(page: Int.min, perPage: 10) }
        let page = try PageRequest(page: 3, perPage: 20)
        #expect(page.offset == 40)
        #expect(PageRequest.first(50) == (try PageRequest(page: 1, perPage: 50)))
    }

    @Test func offsetsAndSlicesNeverOverflow() throws {
        let far = try PageRequest(page: Int.max, perPage: 200)
        #expect(far.offset == Int.max)
        #expect(far.isPastAnyEnd)
        #expect(!far.hasMore(shown: 0, total: Int.max))
        #expect(far.slice(of: Array(0..<10)).isEmpty)
        let justPast = try PageRequest(page: Int.max / 200 + 2, perPage: 200)
        #expect(justPast.isPastAnyEnd)
        #expect(!(try PageRequest(page: 2, perPage: 200)).isPastAnyEnd)
    }

    @Test func slicesAndHasMore() throws {
        let all = Array(1...7)
        #expect(Array(try PageRequest(page: 1, perPage: 3).slice(of: all)) == [1, 2, 3])
        #expect(Array(try PageRequest(page: 3, perPage: 3).slice(of: all)) == [7])
        #expect(Array(try PageRequest(page: 4, perPage: 3).slice(of: all)) == [])
        #expect(Array(try PageRequest(page: 2, perPage: 3).slice(of: all[2...])) == [6, 7], "a slice's own indices")
        #expect(try PageRequest(page: 2, perPage: 3).hasMore(shown: 3, total: 7))
        #expect(!(try PageRequest(page: 3, perPage: 3).hasMore(shown: 1, total: 7)))
        #expect(!(try PageRequest(page: 9, perPage: 3).hasMore(shown: 0, total: 7)))
    }
}
