/// SplitMix64: a small deterministic generator for the mutation and fast-path tests, so a
/// failing input is the same on every run.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// What `TextCleaner.collapse` must produce, spelled plainly over Unicode scalars: runs of
/// whitespace (and NUL) become one space, the ends are trimmed, nothing left is nil.
func referenceCollapse(_ text: String) -> String? {
    var words: [String] = []
    var word = ""
    for scalar in text.unicodeScalars {
        if scalar.properties.isWhitespace || scalar.value == 0 {
            if !word.isEmpty { words.append(word); word = "" }
        } else {
            word.unicodeScalars.append(scalar)
        }
    }
    if !word.isEmpty { words.append(word) }
    return words.isEmpty ? nil : words.joined(separator: " ")
}
