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
