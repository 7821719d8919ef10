import GRDB
import LibraryStore

extension LibraryError {
    /// Maps anything thrown inside a GRDB closure to a `LibraryError` naming the database file.
    static func wrap(_ error: any Error, path: String) -> LibraryError {
        if let error = error as? LibraryError { return error }
        if let error = error as? DatabaseError {
            if error.resultCode == .SQLITE_FULL { return .diskFull }
            let message = error.message ?? "\(error.resultCode)"
            return .database("library \(path): \(message)")
        }
        return .database("library \(path): \(error)")
    }
}
