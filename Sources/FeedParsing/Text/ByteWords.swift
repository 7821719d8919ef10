/// Eight bytes at a time for the text loops: most of a feed's text is visible ASCII that
/// needs no change, and testing a word at once skips it in a few instructions.
enum ByteWords {
    static let ones: UInt64 = 0x0101_0101_0101_0101
    static let highs: UInt64 = 0x8080_8080_8080_8080

    /// The 8 bytes at `p` (any alignment), in memory order from the low byte.
    @inline(__always)
    static func load(_ p: UnsafePointer<UInt8>) -> UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(p).loadUnaligned(as: UInt64.self))
    }

    /// True when every byte is in 0x21...0x7F: visible ASCII (or DEL), no space, no control,
    /// nothing multi-byte.
    @inline(__always)
    static func allVisibleASCII(_ w: UInt64) -> Bool {
        // A byte below 0x21 borrows into its high bit; a byte from 0x80 has it set already.
        ((w &- ones &* 0x21) | w) & highs == 0
    }

    /// True when no byte is below 0x20, a quote or a backslash, and none is from 0x80
    /// (the caller handles those bytes one by one): the word goes into JSON as it is.
    @inline(__always)
    static func plainJSON(_ w: UInt64) -> Bool {
        let quote = w ^ (ones &* 0x22), backslash = w ^ (ones &* 0x5C)
        // `x - 1` borrows into the high bit of a zero byte (exact when no byte is >= 0x80).
        let special = (w &- ones &* 0x20) | (quote &- ones) | (backslash &- ones) | w
        return special & highs == 0
    }

    /// A high bit for each byte of `w` equal to `byte` (exact: no false positives).
    @inline(__always)
    static func matches(_ w: UInt64, _ byte: UInt8) -> UInt64 {
        let t = w ^ (ones &* UInt64(byte))
        let low7 = ones &* 0x7F
        return ~(((t & low7) &+ low7) | t) & highs
    }

    /// True when the word is printable ASCII (space included) whose spaces are single, not the
    /// last byte, and not the first unless `spaceFirst` is allowed: `collapse` keeps it as is.
    @inline(__always)
    static func collapsedASCII(_ w: UInt64, spaceFirst: Bool) -> Bool {
        guard ((w &- ones &* 0x20) | w) & highs == 0 else { return false }
        let spaces = matches(w, 0x20)
        if spaces == 0 { return true }
        let lastByte: UInt64 = 0x80 << 56
        return spaces & (spaces >> 8) == 0 && spaces & lastByte == 0 && (spaceFirst || spaces & 0x80 == 0)
    }
}
