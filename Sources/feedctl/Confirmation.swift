import CLISupport
import Foundation

/// The question a command asks before what cannot be undone (`user remove`): on the terminal
/// only, so a pipe or a script never answers it by accident (they give `--yes`).
enum Confirmation {
    /// Asks `question` on standard error and reads the answer from the terminal; returns on
    /// "y" or "yes", throws `refusal` on anything else, and a line saying `--yes` without a terminal.
    static func ask(_ question: String, refusal: String) throws {
        guard isatty(STDIN_FILENO) == 1 else {
            throw CommandError("\(refusal): this asks first, on a terminal; give --yes to go ahead without asking")
        }
        FileHandle.standardError.write(Data("\(question) [y/N] ".utf8))
        let answer = Swift.readLine(strippingNewline: true)?.trimmingCharacters(in: .whitespaces).lowercased()
        guard answer == "y" || answer == "yes" else { throw CommandError(refusal) }
    }
}
