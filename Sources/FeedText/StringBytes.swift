#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension String {
    /// Runs `body` over the string's UTF-8 bytes in place (a native string's own storage) or,
    /// for a bridged one, over a contiguous copy: `var copy = self; copy.withUTF8` costs a retain
    /// and a release on every call.
    @inlinable @inline(__always)
    package func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let result = utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = self
        return copy.withUTF8(body)
    }

    /// Whether `needle` occurs in the string, compared as UTF-8 bytes: Foundation's
    /// `contains` goes through CFString and showed up in profiles.
    package func containsBytes(_ needle: StaticString) -> Bool {
        guard needle.utf8CodeUnitCount > 0 else { return true }
        return withBytes { h in
            guard let base = h.baseAddress else { return false }
            let n = needle.utf8CodeUnitCount, first = Int32(needle.utf8Start.pointee)
            var i = 0
            // memchr finds each candidate first byte at vector speed.
            while i + n <= h.count, let hit = memchr(base + i, first, h.count - n + 1 - i) {
                let at = UnsafeRawPointer(hit).assumingMemoryBound(to: UInt8.self) - base
                if memcmp(base + at, needle.utf8Start, n) == 0 { return true }
                i = at + 1
            }
            return false
        }
    }

    /// `lowercased() == lower` without building the lowercased copy, for a lowercase ASCII
    /// `lower` without a "k" (the only non-ASCII character that lowercases into ASCII is
    /// U+212A KELVIN SIGN, to "k").
    package func isASCIICaseless(_ lower: StaticString) -> Bool {
        utf8.count == lower.utf8CodeUnitCount && hasASCIICaselessPrefix(lower)
    }

    /// `lowercased().hasPrefix(lower)`, on the same terms as `isASCIICaseless`.
    func hasASCIICaselessPrefix(_ lower: StaticString) -> Bool {
        return withBytes { h in
            guard h.count >= lower.utf8CodeUnitCount else { return false }
            for i in 0..<lower.utf8CodeUnitCount where h[i] | (isLetter(h[i]) ? 0x20 : 0) != lower.utf8Start[i] { return false }
            return true
        }
    }
}
