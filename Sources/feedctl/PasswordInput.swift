import CLISupport
import Foundation

/// Where `user add`/`passwd` read a password: never from the command line (argv is visible to
/// every user in `ps` and lands in shell history), but from the terminal with echo off, or one
/// line of standard input with `--password-stdin` (for scripts).
enum PasswordInput {
    static func read(for name: String, fromStdin: Bool) throws -> String {
        if fromStdin {
            guard let line = Swift.readLine(strippingNewline: true) else {
                throw CommandError("--password-stdin: standard input ended before a password line")
            }
            return line
        }
        guard isatty(STDIN_FILENO) == 1 else {
            throw CommandError("no terminal to read the password from: pipe it with --password-stdin")
        }
        let first = try prompt("password for \(name): ")
        let again = try prompt("again: ")
        guard first == again else { throw CommandError("the two passwords differ; nothing was changed") }
        return first
    }

    /// One line from the terminal with echo off (restored whatever happens).
    private static func prompt(_ text: String) throws -> String {
        FileHandle.standardError.write(Data(text.utf8))
        var saved = termios()
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else { throw CommandError("can't read the terminal's settings: \(String(cString: strerror(errno)))") }
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        guard tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent) == 0 else {
            throw CommandError("can't turn the terminal's echo off: \(String(cString: strerror(errno)))")
        }
        defer {
            _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
            FileHandle.standardError.write(Data("\n".utf8))
        }
        guard let line = Swift.readLine(strippingNewline: true) else { throw CommandError("no password given") }
        return line
    }
}
