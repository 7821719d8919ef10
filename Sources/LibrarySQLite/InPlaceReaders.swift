import Glibc
import GRDB
import Synchronization

/// The connections `readNow` reads on: one per thread that reads in place (the server's event
/// loops), never lent to another thread by us. GRDB's pool lends its readers under a lock, which
/// the server's two loops kept contending for (a futex sleep for most requests, 0.8 per request
/// under bench/serve), and runs a statement of its own before every read to check the schema
/// version: with the request's session and feed page, a tenth of the server's CPU.
///
/// Any thread may use any of these connections safely (each is a GRDB `DatabaseQueue`, which
/// serializes its users): keying them by thread only keeps threads from waiting on each other.
/// Past `limit` threads, `reader()` is nil and the read goes to the pool. Their schema cache is
/// never cleared, so bodies read with SQL only (statements recompile themselves when another
/// process migrates the file); nothing here writes.
final class InPlaceReaders: Sendable {
    private let path: String
    private let configuration: Configuration
    private let readers = Mutex<[UInt: DatabaseQueue]>([:])

    /// The server has two event loops (one per core); tests and tools read from a few more threads.
    static let limit = 8

    init(path: String, configuration: Configuration) {
        var configuration = configuration
        configuration.readonly = true
        self.path = path
        self.configuration = configuration
    }

    /// How many connections are open (tests).
    var count: Int { readers.withLock { $0.count } }

    /// This thread's connection, opened on its first read; nil when `limit` threads have one.
    func reader() throws -> DatabaseQueue? {
        let thread = UInt(pthread_self())
        return try readers.withLock { readers throws -> DatabaseQueue? in
            if let reader = readers[thread] { return reader }
            guard readers.count < Self.limit else { return nil }
            let reader = try DatabaseQueue(path: path, configuration: configuration)
            readers[thread] = reader
            return reader
        }
    }
}
