import Foundation

/// A value only touched under a lock. NSLock (a pthread mutex) rather than
/// Synchronization.Mutex: on Linux, ThreadSanitizer cannot see Mutex's futex slow path and
/// reports false races, and a fetcher's threading should stay checkable with `--sanitize=thread`.
final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
