import FeedText
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes JSON into memory reserved up front: plain stores, none of the uniqueness and
/// capacity checks an Array append makes (an item is ~25 appends). `reserving` sizes the space
/// from the strings to write, so the cursor can never pass its end.
struct JSONWriter {
    private var p: UnsafeMutablePointer<UInt8>

    /// Runs `body` with a writer over `bound` bytes of uninitialized capacity at the end of
    /// `out`, which then grows by what was written (no zero-filling of the worst case, which
    /// is 6x a description's length, and no trimming). `bound` must cover the worst case
    /// (see `worstCase`).
    static func reserving(_ bound: Int, in out: inout [UInt8], _ body: (inout JSONWriter) -> Void) {
        out.append(addingCapacity: bound) { span in
            span.withUnsafeMutableBufferPointer { buffer, initialized in
                guard let base = buffer.baseAddress else { return }
                var w = JSONWriter(p: base)
                body(&w)
                initialized = w.p - base
                // Debug builds (the tests) catch a bound that no longer covers what is written.
                assert(initialized <= bound, "JSONWriter wrote \(initialized) bytes into \(bound)")
            }
        }
    }

    /// The most bytes a string value can take: every byte escaped as `\u00XX`, plus the quotes
    /// (or `null`).
    static func worstCase(_ s: String?) -> Int { s.map { $0.utf8.count * 6 + 2 } ?? 4 }

    @inline(__always)
    mutating func put(_ s: StaticString) {
        p.update(from: s.utf8Start, count: s.utf8CodeUnitCount)
        p += s.utf8CodeUnitCount
    }

    @inline(__always)
    mutating func put(byte: UInt8) {
        p.pointee = byte
        p += 1
    }

    mutating func value(_ v: String?) {
        if let v { quote(v) } else { put("null") }
    }

    mutating func value(_ v: Int64?) {
        guard let v else { put("null"); return }
        if v < 0 { put(byte: UInt8(ascii: "-")) }
        var m = v.magnitude
        // Digits are written backwards from the end of a 20-byte field, then moved down
        // (callers reserve 24 bytes per number).
        var digits = 0
        let end = p + 20
        repeat {
            digits += 1
            (end - digits).pointee = UInt8(48 + m % 10)
            m /= 10
        } while m > 0
        memmove(p, end - digits, digits)   // the regions may overlap
        p += digits
    }

    /// A JSON string literal: quotes, backslashes and control characters escaped; other
    /// characters stay UTF-8.
    mutating func quote(_ s: String) {
        put(byte: UInt8(ascii: "\""))
        s.withBytes { b in
            guard let base = b.baseAddress else { return }
            var runStart = 0
            var i = 0
            while i < b.count {
                if i + 8 <= b.count, ByteWords.plainJSON(ByteWords.load(base + i)) { i += 8; continue }
                let c = b[i]
                i += 1
                guard c < 0x20 || c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") else { continue }
                copy(base + runStart, i - 1 - runStart)
                runStart = i
                switch c {
                case UInt8(ascii: "\""): put("\\\"")
                case UInt8(ascii: "\\"): put("\\\\")
                case 0x0A: put("\\n")
                case 0x0D: put("\\r")
                case 0x09: put("\\t")
                default:
                    put("\\u00")
                    put(byte: Self.hexDigits[Int(c >> 4)])
                    put(byte: Self.hexDigits[Int(c & 15)])
                }
            }
            copy(base + runStart, b.count - runStart)
        }
        put(byte: UInt8(ascii: "\""))
    }

    private mutating func copy(_ from: UnsafePointer<UInt8>, _ count: Int) {
        guard count > 0 else { return }
        memcpy(p, from, count)
        p += count
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}
