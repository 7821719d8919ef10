import GRDB
import LibraryStore

extension LibraryError {
    /// Maps anything thrown inside a GRDB closure to a `LibraryError`; SQLite's own errors keep
    /// their result codes, sorted into `DatabaseFailure.Kind`.
    static func wrap(_ error: any Error, path: String) -> LibraryError {
        if let error = error as? LibraryError { return error }
        if let error = error as? DatabaseError {
            let code = error.extendedResultCode
            return .database(DatabaseFailure(kind: DatabaseFailure.Kind(sqlite: code), code: code.primaryResultCode.rawValue,
                                             extendedCode: code.rawValue, message: error.message ?? "\(code)", path: path))
        }
        return .database(DatabaseFailure(kind: .other, message: "\(error)", path: path))
    }
}

/// A result the store did not expect from SQLite (a statement that wrote nothing it should
/// have), thrown inside a transaction: `wrap` reports it with the library's file.
struct UnexpectedResult: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension DatabaseFailure.Kind {
    /// What SQLite's (extended) result code means for a caller.
    init(sqlite code: ResultCode) {
        switch code.primaryResultCode {
        case .SQLITE_BUSY: self = code == .SQLITE_BUSY_SNAPSHOT ? .serializationFailure : .busy
        case .SQLITE_LOCKED: self = .busy
        case .SQLITE_FULL: self = .diskFull
        case .SQLITE_CONSTRAINT: self = .constraint
        case .SQLITE_CORRUPT, .SQLITE_NOTADB: self = .corrupt
        case .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_READONLY, .SQLITE_AUTH: self = .cannotOpen
        default: self = .other
        }
    }
}
