import FeedModel
#if canImport(Glibc)
import Glibc
#endif

/// Keeps one parse within `ParseLimits`: the parsers' callbacks report elements, events and
/// entity expansions here, and stop libxml2 when `exceeded` is set. The CPU clock is read every
/// 256 events (a system call), so the check costs nothing measurable, and between pushed chunks.
/// CPU time of this thread, not wall time: a loaded machine does not fail healthy feeds.
/// One instance per document, used from the parsing thread only.
final class ParseGuard {
    private(set) var exceeded: ParseLimit?
    private let budget: Double
    /// Set by the first clock reading (the 256th event, or the first pushed chunk): a small
    /// document (a show notes' HTML, parsed once per item) never pays the system call, and what
    /// runs before it is at most 256 events.
    private var deadline: Double?
    private let maxExpansion: Int
    private var elements = 0
    private var events = 0
    private var expanded = 0

    init(budget: Double, documentBytes: Int) {
        self.budget = budget
        let relative = max(ParseLimits.expansionAllowance, ParseLimits.expansionRatio.multipliedReportingOverflow(by: documentBytes).partialValue)
        maxExpansion = min(ParseLimits.maxExpansion, relative)
    }

    /// A start tag at `depth` (the root is 1). False when a bound is broken.
    @inline(__always)
    func element(depth: Int) -> Bool {
        elements += 1
        if depth > ParseLimits.maxDepth { return fail(.depth(ParseLimits.maxDepth)) }
        if elements > ParseLimits.maxElements { return fail(.elements(ParseLimits.maxElements)) }
        return event()
    }

    /// Any other callback (end tags, text, errors).
    @inline(__always)
    func event() -> Bool {
        events &+= 1
        return events & 255 != 0 || inTime()
    }

    func inTime() -> Bool {
        guard exceeded == nil else { return false }
        let now = Self.cpuSeconds()
        guard let deadline else {
            deadline = now + budget
            return true
        }
        return now <= deadline || fail(.time(budget))
    }

    /// An internal entity of `bytes` is about to be expanded.
    func expand(_ bytes: Int) -> Bool {
        expanded += bytes
        return expanded <= maxExpansion || fail(.entityExpansion(maxExpansion))
    }

    /// Records `limit` (the first one broken wins) and returns false.
    func fail(_ limit: ParseLimit) -> Bool {
        if exceeded == nil { exceeded = limit }
        return false
    }

    private static func cpuSeconds() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }
}
