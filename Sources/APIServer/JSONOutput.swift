import FeedText
import Glibc
import Hummingbird

/// JSON written straight into bytes, for the answer sent most: a feed page (50 items, ~45 KB).
/// Foundation's `JSONEncoder` took ~2 ms of CPU per page through `Encodable`'s generic containers,
/// 44% of the server's time under load (bench/serve); this writes the same JSON (the types'
/// `Encodable` form stays, and a test checks the two agree) in a small fraction of that.
/// Strings are escaped as JSON requires and nothing more: non-ASCII stays UTF-8 and slashes
/// stay unescaped, as `APIRequestContext.encoder` writes them.
struct JSONOutput: ~Copyable {
    private var storage: ByteRun
    /// Whether the next value or key opens its object or array (or follows a key): no comma.
    private var first = true

    init(capacity: Int = 1024) { storage = ByteRun(capacity: capacity) }

    /// What was written.
    var bytes: [UInt8] { storage.withBytes { Array($0) } }

    mutating func object(_ body: (inout JSONOutput) -> Void) {
        separate()
        storage.append(UInt8(ascii: "{"))
        first = true
        body(&self)
        storage.append(UInt8(ascii: "}"))
        first = false
    }

    /// Each element is lent to `each` where it lies (iterating would copy it, retaining every
    /// string in it).
    mutating func array<T>(_ elements: [T], _ each: (inout JSONOutput, borrowing T) -> Void) {
        separate()
        storage.append(UInt8(ascii: "["))
        first = true
        for index in elements.indices { each(&self, elements[index]) }
        storage.append(UInt8(ascii: "]"))
        first = false
    }

    /// A key: ASCII written as it is (our keys are snake_case literals), with the comma before it.
    mutating func key(_ name: StaticString) {
        storage.appendKey(UnsafeRawBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount), separated: !first)
        first = true
    }

    mutating func null() {
        separate()
        raw("null")
    }

    mutating func bool(_ value: Bool) {
        separate()
        raw(value ? "true" : "false")
    }

    mutating func int<T: BinaryInteger>(_ value: T) {
        separate()
        // Digits from the right into a small buffer; the magnitude as UInt64 also holds Int64.min's.
        var magnitude = UInt64(value.magnitude)
        var buffer: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &buffer) { digits in
            var index = digits.count
            repeat {
                index -= 1
                digits[index] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if value < 0 { index -= 1; digits[index] = UInt8(ascii: "-") }
            storage.append(UnsafeRawBufferPointer(rebasing: digits[index...]))
        }
    }

    mutating func string(_ value: String) {
        separate()
        storage.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            let bytes = UnsafeRawBufferPointer(utf8)
            var start = 0, index = 0
            // Eight bytes at a time: most text has nothing to escape (a page is ~45 KB of it, and
            // a byte-by-byte scan was an eighth of the server's instructions).
            while index + 8 <= bytes.count {
                if Self.mayNeedEscaping(bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)) {
                    for offset in index..<index + 8 where Self.needsEscaping(bytes[offset]) {
                        storage.append(UnsafeRawBufferPointer(rebasing: bytes[start..<offset]))
                        escape(bytes[offset])
                        start = offset + 1
                    }
                }
                index += 8
            }
            for offset in index..<bytes.count where Self.needsEscaping(bytes[offset]) {
                storage.append(UnsafeRawBufferPointer(rebasing: bytes[start..<offset]))
                escape(bytes[offset])
                start = offset + 1
            }
            storage.append(UnsafeRawBufferPointer(rebasing: bytes[start...]))
        }
        storage.append(UInt8(ascii: "\""))
    }

    private static func needsEscaping(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    /// Whether any of the eight bytes may be a control character, `"` or `\` (never false when
    /// one is; the bytes are then checked one by one). The classic zero-byte test: `x - 0x01…`
    /// borrows into a byte's top bit only where the byte was below the subtrahend, and `& ~x`
    /// keeps bytes that were below 0x80 (UTF-8's multi-byte sequences pass untouched).
    private static func mayNeedEscaping(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let quote = word ^ (ones &* UInt64(UInt8(ascii: "\""))), backslash = word ^ (ones &* UInt64(UInt8(ascii: "\\")))
        let below0x20 = (word &- ones &* 0x20) & ~word
        let quoteZero = (quote &- ones) & ~quote
        let backslashZero = (backslash &- ones) & ~backslash
        return (below0x20 | quoteZero | backslashZero) & highs != 0
    }

    /// A string of bytes known to need no escaping (digits and punctuation we wrote ourselves).
    mutating func plainString(_ bytes: UnsafeRawBufferPointer) {
        separate()
        storage.append(UInt8(ascii: "\""))
        storage.append(bytes)
        storage.append(UInt8(ascii: "\""))
    }

    /// A date as `WireDate` spells it, its digits written without a string made for them.
    mutating func date(_ seconds: Int64) {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        guard let count = withUnsafeMutableBytes(of: &digits, { UTCDate.write(seconds, into: $0) }) else {
            string(WireDate.string(seconds))
            return
        }
        withUnsafeBytes(of: &digits) { plainString(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
    }

    mutating func date(_ seconds: Int64?) {
        if let seconds { date(seconds) } else { null() }
    }

    mutating func string(_ value: String?) {
        if let value { string(value) } else { null() }
    }

    mutating func int<T: BinaryInteger>(_ value: T?) {
        if let value { int(value) } else { null() }
    }

    private mutating func escape(_ byte: UInt8) {
        storage.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): storage.append(byte)
        case 0x0A: storage.append(UInt8(ascii: "n"))
        case 0x0D: storage.append(UInt8(ascii: "r"))
        case 0x09: storage.append(UInt8(ascii: "t"))
        case 0x08: storage.append(UInt8(ascii: "b"))
        case 0x0C: storage.append(UInt8(ascii: "f"))
        default:
            raw("u00")
            storage.append(Self.hexDigits[Int(byte >> 4)])
            storage.append(Self.hexDigits[Int(byte & 0x0F)])
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    @inline(__always)
    private mutating func raw(_ text: StaticString) {
        storage.append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    @inline(__always)
    private mutating func separate() {
        if first { first = false } else { storage.append(UInt8(ascii: ",")) }
    }

    /// A 200 answer with these bytes, gzipped when `request` takes it (`Gzip.jsonResponse`).
    func response(for request: Request) -> Response {
        storage.withBytes { Gzip.jsonResponse($0, for: request) }
    }
}

/// Bytes appended through a pointer, grown by doubling: `JSONOutput`'s storage. An Array checked
/// its uniqueness and capacity in a call per append, a third of the writer's time.
private struct ByteRun: ~Copyable {
    private var start: UnsafeMutableRawPointer
    private var count = 0
    private var capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 64)
        start = .allocate(byteCount: self.capacity, alignment: 1)
    }

    deinit { start.deallocate() }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        if count == capacity { grow(to: count + 1) }
        start.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
        count += 1
    }

    @inline(__always)
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        if count + bytes.count > capacity { grow(to: count + bytes.count) }
        (start + count).copyMemory(from: source, byteCount: bytes.count)
        count += bytes.count
    }

    /// `"name":`, after a comma if `separated`, with one check of the capacity (a page has ~1,400 keys).
    mutating func appendKey(_ name: UnsafeRawBufferPointer, separated: Bool) {
        let comma = separated ? 1 : 0
        let needed = count + comma + name.count + 3
        if needed > capacity { grow(to: needed) }
        if separated { start.storeBytes(of: UInt8(ascii: ","), toByteOffset: count, as: UInt8.self) }
        start.storeBytes(of: UInt8(ascii: "\""), toByteOffset: count + comma, as: UInt8.self)
        if let source = name.baseAddress { (start + count + comma + 1).copyMemory(from: source, byteCount: name.count) }
        start.storeBytes(of: UInt8(ascii: "\""), toByteOffset: needed - 2, as: UInt8.self)
        start.storeBytes(of: UInt8(ascii: ":"), toByteOffset: needed - 1, as: UInt8.self)
        count = needed
    }

    func withBytes<T>(_ body: (UnsafeRawBufferPointer) -> T) -> T {
        body(UnsafeRawBufferPointer(start: start, count: count))
    }

    @inline(never)
    private mutating func grow(to needed: Int) {
        var larger = capacity * 2
        while larger < needed { larger *= 2 }
        let moved = UnsafeMutableRawPointer.allocate(byteCount: larger, alignment: 1)
        moved.copyMemory(from: start, byteCount: count)
        start.deallocate()
        start = moved
        capacity = larger
    }
}

/// A value the server writes with `JSONOutput` rather than `JSONEncoder` (its `Encodable` form
/// is the same JSON: tests compare them).
protocol FastJSON: ResponseGenerator {
    func write(to out: inout JSONOutput)
    /// Bytes to reserve for one answer.
    var expectedSize: Int { get }
}

extension FastJSON {
    var expectedSize: Int { 1024 }

    func json() -> [UInt8] {
        var out = JSONOutput(capacity: expectedSize)
        write(to: &out)
        return out.bytes
    }


    func response(from request: Request, context: some RequestContext) throws -> Response {
        var out = JSONOutput(capacity: expectedSize)
        write(to: &out)
        return out.response(for: request)
    }
}
