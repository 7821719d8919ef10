import CCurl

/// The one place other threads talk to the fetch loop: they post jobs, cancellation sweeps and
/// the stop request here, then wake the loop with `curl_multi_wakeup`, the single libcurl call
/// documented as safe from any thread.
final class FetchInbox: Sendable {
    struct Batch: Sendable {
        var jobs: [FetchJob] = []
        var sweep = false
        /// A streamed body's reader caught up: resume the transfers paused for it.
        var resumeStreams = false
        var stop = false
    }

    private struct State: Sendable {
        var batch = Batch()
        /// Set by the loop before it frees the multi handle: nothing may wake it after that.
        var closed = false
    }

    /// The loop's multi handle, shared only so `wake` can call `curl_multi_wakeup` on it.
    private struct Multi: @unchecked Sendable { let raw: UnsafeMutableRawPointer }
    private let multi: Multi?
    private let state = Locked(State())

    /// With a nil handle (libcurl failed to start) the inbox is closed from the beginning.
    init(multi: UnsafeMutableRawPointer?) {
        self.multi = multi.map(Multi.init)
        if multi == nil { state.withLock { $0.closed = true } }
    }

    /// False when the loop has shut down: the caller must complete the job itself.
    func post(_ job: FetchJob) -> Bool {
        wake { $0.jobs.append(job) }
    }

    func sweep() { _ = wake { $0.sweep = true } }

    func resumeStreams() { _ = wake { $0.resumeStreams = true } }

    func stop() { _ = wake { $0.stop = true } }

    /// Everything posted since the last call (the loop's side).
    func take() -> Batch {
        state.withLock { state in
            defer { state.batch = Batch() }
            return state.batch
        }
    }

    /// The loop is about to free the multi handle; later posts are refused. Returns jobs that
    /// were posted but never taken, for the loop to fail.
    func close() -> [FetchJob] {
        state.withLock { state in
            state.closed = true
            defer { state.batch = Batch() }
            return state.batch.jobs
        }
    }

    private func wake(_ change: (inout Batch) -> Void) -> Bool {
        state.withLock { state in
            guard !state.closed, let multi else { return false }
            change(&state.batch)
            // Under the lock, so the loop cannot free the handle in between.
            _ = feedctl_curl_multi_wakeup(multi.raw)
            return true
        }
    }
}
