import ArgumentParser

/// `feedctl fed` names the command that was probably meant (`did you mean feed?`), at every
/// level (`feedctl channel lst`): ArgumentParser only says `Unexpected argument 'fed'`.
enum CommandSuggestion {
    /// For a command line ArgumentParser refused: the first word where a subcommand was expected
    /// and none has that name, with the nearest name; nil when the refusal is about something
    /// else (an option, an argument's value), or the word is an argument of a default subcommand.
    static func message(for arguments: [String], root: any ParsableCommand.Type) -> String? {
        var command = root
        var path: [String] = []
        for word in arguments {
            let configuration = command.configuration
            guard !word.hasPrefix("-"), !configuration.subcommands.isEmpty, configuration.defaultSubcommand == nil else { return nil }
            if let next = configuration.subcommands.first(where: { $0._commandName == word }) {
                command = next
                path.append(word)
                continue
            }
            if word == "help" { return nil }
            let said = (path + [word]).joined(separator: " ")
            guard let nearest = nearest(to: word, among: configuration.subcommands.map { $0._commandName }) else {
                return "no command \"\(said)\" (\((["feedctl"] + path).joined(separator: " ")) --help lists them)"
            }
            return "no command \"\(said)\": did you mean \((path + [nearest]).joined(separator: " "))?"
        }
        return nil
    }

    /// The name a typo of `word` most likely is: the nearest by edit distance (a swap of two
    /// neighbours counts once), within a third of the word's length (at least one edit), or the
    /// only name `word` begins.
    static func nearest(to word: String, among names: [String]) -> String? {
        let scored = names.map { ($0, distance(word, $0)) }
        if let (name, d) = scored.min(by: { $0.1 < $1.1 }), d <= max(1, word.count / 3) { return name }
        let extended = names.filter { word.count >= 2 && $0.hasPrefix(word) }
        return extended.count == 1 ? extended[0] : nil
    }

    /// The optimal string alignment distance: insertions, deletions, substitutions and
    /// transpositions of adjacent characters.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
            }
        }
        return d[a.count][b.count]
    }
}
