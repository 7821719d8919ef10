import FeedModel
import HummingbirdBcrypt

/// Passwords become bcrypt hashes here and nowhere else; the library stores only the hash.
/// Hashing and verifying are deliberately slow (`PasswordRule.bcryptCost`) and block the calling
/// thread: call them off an event loop.
public enum Password {
    /// Why a password is refused, as one line.
    public enum Problem: Error, Equatable, CustomStringConvertible {
        case tooShort
        case tooLong
        case containsNUL

        public var description: String {
            switch self {
            case .tooShort: "a password needs at least \(PasswordRule.minLength) characters"
            case .tooLong: "a password is at most \(PasswordRule.maxBytes) bytes (bcrypt reads no more)"
            case .containsNUL: "a password cannot contain a NUL character"
            }
        }
    }

    /// The bcrypt hash of `password` (`$2b$12$…`, salted), after checking it against `PasswordRule`.
    public static func hash(_ password: String, cost: UInt8 = PasswordRule.bcryptCost) throws(Problem) -> String {
        try check(password)
        return Bcrypt.hash(password, cost: cost)
    }

    /// Whether `password` matches `hash` (false for a hash that is not bcrypt's).
    public static func verify(_ password: String, hash: String) -> Bool {
        // The C code reads a C string: a NUL would end the password early, and a longer one is cut.
        guard !password.utf8.contains(0), password.utf8.count <= PasswordRule.maxBytes, hash.hasPrefix("$2") else { return false }
        return Bcrypt.verify(password, hash: hash)
    }

    public static func check(_ password: String) throws(Problem) {
        if password.utf8.contains(0) { throw .containsNUL }
        if password.count < PasswordRule.minLength { throw .tooShort }
        if password.utf8.count > PasswordRule.maxBytes { throw .tooLong }
    }
}
