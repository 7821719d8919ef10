import CLibPQ
import Dispatch
import Glibc
import LibraryStore
import Synchronization

/// LISTENs for the change log's notifications (`pg_notify('feedctl_changes', seq)`, sent by the
/// schema's trigger when a change commits, whichever process on the database made it) and wakes
/// whoever waits for a change past a point: the server's event streams hear a change made
/// through another replica as it commits, and read the log only then. One connection and one
/// queue per opened library, started by the first waiter; a lost connection is made again after
/// a second. While it is not listening (not yet, or its connection was lost) waiters are woken
/// after their poll interval instead, and every waiter is woken when it starts or stops
/// listening (a change may have committed unheard).
final class PGChangeListener: Sendable {
    private struct State {
        var started = false
        /// Whether its LISTEN is in place (notifications are heard).
        var listening = false
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

    /// Returns when a change after `seq` was notified, or after `timeout`; after `poll` while
    /// not listening.
    func wait(after seq: Int64, poll: Duration, timeout: Duration) async {
        startOnce()
        var timer: Task<Void, Never>?
        await withCheckedContinuation { continuation in
            // Registered and its bound chosen under one lock: a change of `listening` comes
            // after (and wakes it) or before (and chose its bound).
            let waiting: (id: UInt64, bound: Duration)? = state.withLock { state in
                guard state.latest <= seq else { return nil }
                state.nextID += 1
                state.waiters[state.nextID] = (seq, continuation)
                return (state.nextID, state.listening ? timeout : min(poll, timeout))
            }
            guard let (id, bound) = waiting else { return continuation.resume() }
            timer = Task { [weak self] in
                try? await Task.sleep(for: bound)
                self?.resume(id)
            }
        }
        timer?.cancel()
    }

    private func resume(_ id: UInt64) {
        state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume()
    }

    /// Sets whether it listens, and wakes every waiter to look at the log.
    private func listening(_ now: Bool) {
        let woken = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.listening = now
            defer { state.waiters = [:] }
            return state.waiters.values.map(\.continuation)
        }
        for continuation in woken { continuation.resume() }
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
                    self?.listening(true)
                    while let listener = self {
                        var descriptor = pollfd(fd: connection.socket, events: Int16(POLLIN), revents: 0)
                        _ = poll(&descriptor, 1, 1000)
                        for notice in try connection.notifications() where notice.channel == Self.channel {
                            if let seq = Int64(notice.payload) { listener.heard(seq) }
                        }
                    }
                } catch {
                    self?.listening(false)
                    sleep(1)  // no server for now: listen again in a second (readers poll meanwhile)
                }
            }
        }
    }
}
