#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension String {
    /// Whether `needle` occurs in the string, compared as UTF-8 bytes: Foundation's
    /// `contains` goes through CFString and showed up in profiles.
    func containsBytes(_ needle: StaticString) -> Bool {
        let n = UnsafeBufferPointer(start: needle.utf8Start, count: needle.utf8CodeUnitCount)
        guard let first = n.first, let needleBase = n.baseAddress else { return true }
        var copy = self
        return copy.withUTF8 { h in
            guard h.count >= n.count, let base = h.baseAddress else { return false }
            for i in 0...(h.count - n.count) where h[i] == first && memcmp(base + i, needleBase, n.count) == 0 {
                return true
            }
            return false
        }
    }
}
