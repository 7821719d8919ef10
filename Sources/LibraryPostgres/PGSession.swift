import Dispatch
import LibraryStore

/// One connection held by one caller across awaits, outside the pool: a transaction that spans
/// many calls (`db copy`'s reader and writer), which a pool slot, given back after each body,
/// cannot hold. Owned by its own serial queue (the connection is touched only there). Let go, it
/// closes its connection, and PostgreSQL rolls back a transaction left open.
final class PGSession: @unchecked Sendable {
    private let queue: DispatchQueue
    /// Touched only on `queue`.
    private let connection: PGConnection

    private init(queue: DispatchQueue, connection: PGConnection) { self.queue = queue; self.connection = connection }

    /// Connects (on the session's queue: connecting blocks).
    static func open(url: String, location: String) async throws(LibraryError) -> PGSession {
        let queue = DispatchQueue(label: "feedctl.postgres.session")
        let result: Result<PGConnection, LibraryError> = await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: Result { () throws(LibraryError) in try PGConnection(url: url, location: location) }) }
        }
        return PGSession(queue: queue, connection: try result.get())
    }

    /// Runs `body` on the session's connection.
    func run<T: Sendable>(_ body: @escaping @Sendable (PGConnection) throws(LibraryError) -> T) async throws(LibraryError) -> T {
        let result: Result<T, LibraryError> = await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: Result { () throws(LibraryError) in try body(self.connection) }) }
        }
        return try result.get()
    }
}
