import Dispatch
import LibraryStore
import Synchronization

/// A fixed number of connections, each owned by one slot and used on that slot's serial queue
/// only (one owner per C handle; the queues' threads are bounded by the pool's size, never one
/// per request). A caller waits for a free slot, runs its body there, and gives it back. A
/// connection that was lost is dropped and made anew on the slot's next use.
final class PGPool: Sendable {
    private final class Slot: @unchecked Sendable {
        let queue: DispatchQueue
        /// Touched only on `queue`.
        var connection: PGConnection?
        init(_ index: Int) { queue = DispatchQueue(label: "feedctl.postgres.\(index)") }
    }

    private struct Waiting {
        var free: [Int]
        var waiters: [CheckedContinuation<Int, Never>] = []
    }

    let url: String
    let location: String
    private let slots: [Slot]
    private let state: Mutex<Waiting>

    init(url: String, location: String, size: Int) {
        self.url = url
        self.location = location
        slots = (0..<max(1, size)).map(Slot.init)
        state = Mutex(Waiting(free: Array(slots.indices)))
    }

    /// Runs `body` on a connection of the pool, waiting for one to be free.
    func withConnection<T: Sendable>(_ body: @escaping @Sendable (PGConnection) throws(LibraryError) -> T) async throws(LibraryError) -> T {
        let index = await acquire()
        defer { release(index) }
        let slot = slots[index]
        let url = url, location = location
        let result: Result<T, LibraryError> = await withCheckedContinuation { continuation in
            slot.queue.async {
                continuation.resume(returning: Result { () throws(LibraryError) -> T in
                    let connection: PGConnection
                    if let open = slot.connection, open.isUsable {
                        connection = open
                    } else {
                        slot.connection = nil
                        connection = try PGConnection(url: url, location: location)
                        slot.connection = connection
                    }
                    do throws(LibraryError) {
                        return try body(connection)
                    } catch {
                        if !connection.isUsable { slot.connection = nil }
                        throw error
                    }
                })
            }
        }
        return try result.get()
    }

    private func acquire() async -> Int {
        if let index = state.withLock({ $0.free.popLast() }) { return index }
        return await withCheckedContinuation { continuation in
            let index: Int? = state.withLock { waiting in
                if let index = waiting.free.popLast() { return index }
                waiting.waiters.append(continuation)
                return nil
            }
            if let index { continuation.resume(returning: index) }
        }
    }

    private func release(_ index: Int) {
        let next: CheckedContinuation<Int, Never>? = state.withLock { waiting in
            if waiting.waiters.isEmpty {
                waiting.free.append(index)
                return nil
            }
            return waiting.waiters.removeFirst()
        }
        next?.resume(returning: index)
    }
}
