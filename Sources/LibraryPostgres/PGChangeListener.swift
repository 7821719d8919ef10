import CLibPQ
import Dispatch
import Glibc
import LibraryStore
import Synchronization

/// LISTENs for the change log's notifications (`pg_notify('feedctl_changes', seq)`, sent by the
/// schema's trigger when a change commits, whichever process on the database made it) and wakes
/// whoever waits for a change past a point: the server's event streams hear a change made
/// through another replica as it commits. One connection and one queue per opened library,
/// started by the first waiter; a lost connection is made again after a second.
final class PGChangeListener: Sendable {
    private struct State {
        var started = false
        /// The highest `seq` heard of (0: none yet).
        var latest: Int64 = 0
        var waiters: [UInt64: (after: Int64, continuation: CheckedContinuation<Void, Never>)] = [:]
        var nextID: UInt64 = 0
    }

    static let channel = "feedctl_changes"
    private let url: String
    private let location: String
    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "feedctl.postgres.listen")

    init(url: String, location: String) {
        self.url = url
        self.location = location
    }

    /// Returns when a change after `seq` was notified, or after `timeout`.
    func wait(after seq: Int64, timeout: Duration) async {
        startOnce()
        let id: UInt64? = state.withLock { state in
            guard state.latest <= seq else { return nil }
            state.nextID += 1
            return state.nextID
        }
        guard let id else { return }
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            self?.resume(id)
        }
        await withCheckedContinuation { continuation in
            let heard = state.withLock { state -> Bool in
                if state.latest > seq { return true }
                state.waiters[id] = (seq, continuation)
                return false
            }
            if heard { continuation.resume() }
        }
        timer.cancel()
    }

    private func resume(_ id: UInt64) {
        state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume()
    }

    private func heard(_ seq: Int64) {
        let woken = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.latest = max(state.latest, seq)
            let due = state.waiters.filter { $0.value.after < seq }
            for id in due.keys { state.waiters.removeValue(forKey: id) }
            return due.values.map(\.continuation)
        }
        for continuation in woken { continuation.resume() }
    }

    private func startOnce() {
        let start = state.withLock { state -> Bool in
            defer { state.started = true }
            return !state.started
        }
        guard start else { return }
        let url = url, location = location
        // The loop lives as long as the process (an opened library is for the process's life).
        queue.async { [weak self] in
            while self != nil {
                do throws(LibraryError) {
                    let connection = try PGConnection(url: url, location: location, statementTimeout: 0)
                    try connection.execute("LISTEN \(Self.channel)")
                    while let listener = self {
                        var descriptor = pollfd(fd: connection.socket, events: Int16(POLLIN), revents: 0)
                        _ = poll(&descriptor, 1, 1000)
                        for notice in try connection.notifications() where notice.channel == Self.channel {
                            if let seq = Int64(notice.payload) { listener.heard(seq) }
                        }
                    }
                } catch {
                    sleep(1)  // no server for now: listen again in a second (readers poll meanwhile)
                }
            }
        }
    }
}
