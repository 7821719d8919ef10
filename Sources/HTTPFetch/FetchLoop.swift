import CCurl

/// The thread that owns libcurl: one multi handle, the transfers on it, the queue of jobs
/// waiting for a slot. No curl handle is touched by any other thread; jobs arrive through the
/// `FetchInbox` and results leave through each job's completion.
///
/// Slots: a transfer starts when fewer than `concurrency` transfers count and fewer than
/// `bounds.connectionsPerHost` of them are to its host; jobs for a full host wait while later
/// jobs for other hosts start. A transfer still running `bounds.slowAfter` seconds after it
/// started stops counting (up to `bounds.maxSlowTransfers` of them), so a slow body never holds
/// a slot the healthy feeds queued behind it need. Waiting here costs a job nothing: its
/// timeouts start when it starts.
final class FetchLoop {
    private let multi: UnsafeMutableRawPointer
    private let inbox: FetchInbox
    private let concurrency: Int
    private let bounds: FetchBounds
    private let userAgent: String
    private let addresses: AddressPolicy
    private var queue: [FetchJob] = []
    private var queueHead = 0
    private var active: [UnsafeMutableRawPointer: Transfer] = [:]
    private let clock = ContinuousClock()
    /// Transfers that count against `concurrency`, in all and per host.
    private var counted = 0
    private var countedPerHost: [HostKey: Int] = [:]
    /// Every running transfer per host, slow ones included (the hard bound).
    private var runningPerHost: [HostKey: Int] = [:]
    private var slow = 0

    init(multi: UnsafeMutableRawPointer, inbox: FetchInbox, concurrency: Int, bounds: FetchBounds, userAgent: String,
         addresses: AddressPolicy) {
        self.multi = multi
        self.inbox = inbox
        self.concurrency = concurrency
        self.bounds = bounds
        self.userAgent = userAgent
        self.addresses = addresses
        // Idle connections kept for reuse; libcurl's default (4 per added handle) shrinks
        // when the loop is idle, which would close them between syncs of the same host.
        _ = feedctl_curl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, max(16, (concurrency + bounds.maxSlowTransfers) * 2))
        // The backstop only: the loop never starts more than this on one host itself (see
        // FetchBounds for why libcurl's own queue must not be the one that waits).
        _ = feedctl_curl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, bounds.maxConnectionsPerHost)
    }

    /// Runs until the inbox says stop, then fails whatever is left and frees the multi handle.
    func run() {
        while true {
            let batch = inbox.take()
            queue.append(contentsOf: batch.jobs)
            if batch.stop { break }
            if batch.sweep { sweepCancelled() }
            if batch.resumeStreams { resumeStreams() }
            startStreams()
            startQueued()
            var running: Int32 = 0
            _ = feedctl_curl_multi_perform(multi, &running)
            if collectFinished() { continue }  // slots freed or redirects re-added: go again
            // Sleeps until a socket is ready, libcurl's next timeout, `curl_multi_wakeup`, or
            // the moment a running transfer turns slow and a waiting job may start.
            _ = feedctl_curl_multi_poll(multi, nil, 0, pollTimeout(), nil)
        }
        for transfer in Array(active.values) { end(transfer, .failure(transfer.cancelled())) }
        let stranded = queue[queueHead...] + inbox.close()
        for job in stranded {
            job.complete(.failure(FetchError(url: job.request.url, kind: .cancelled, reason: "cancelled: the fetcher shut down")))
        }
        feedctl_curl_multi_cleanup(multi)
    }

    /// Streams start at once: their callers bound how many run (a stream may last an hour, so
    /// it must not hold a slot the feeds need), and they never wait behind a slow host.
    private func startStreams() {
        guard queue[queueHead...].contains(where: { $0.stream != nil }) else { return }
        let streams = queue[queueHead...].filter { $0.stream != nil }
        queue = queue[queueHead...].filter { $0.stream == nil }
        queueHead = 0
        for job in streams { start(job) }
    }

    /// Resumes the streamed transfers paused for a reader that has caught up. libcurl may hand
    /// them the bytes it held back right here, inside `curl_easy_pause`, on this thread.
    private func resumeStreams() {
        for transfer in Array(active.values) where transfer.job.stream?.takeResume() == true {
            _ = feedctl_curl_easy_unpause(transfer.easy)
        }
    }

    /// Moves queued jobs onto the multi handle while there are free slots, in order, skipping
    /// the jobs whose host is at its bound.
    private func startQueued() {
        markSlow()
        guard queueHead < queue.count, counted < concurrency else { return }
        var waiting: [FetchJob] = []
        for job in queue[queueHead...] {
            if counted < concurrency, countedPerHost[job.host, default: 0] < bounds.connectionsPerHost,
               runningPerHost[job.host, default: 0] < bounds.maxConnectionsPerHost {
                start(job)
            } else {
                waiting.append(job)
            }
        }
        queue = waiting
        queueHead = 0
    }

    /// Transfers running longer than `slowAfter` stop counting against the bounds.
    private func markSlow() {
        guard queueHead < queue.count else { return }
        let now = clock.now
        for transfer in active.values where transfer.countsAgainstBounds && slow < bounds.maxSlowTransfers {
            guard now - transfer.admitted >= .seconds(bounds.slowAfter) else { continue }
            transfer.countsAgainstBounds = false
            counted -= 1
            countedPerHost[transfer.host, default: 1] -= 1
            slow += 1
        }
    }

    /// Milliseconds until the next transfer turns slow while jobs wait (at most 10 s).
    private func pollTimeout() -> Int32 {
        guard queueHead < queue.count, slow < bounds.maxSlowTransfers else { return 10_000 }
        let now = clock.now
        var soonest = 10.0
        for transfer in active.values where transfer.countsAgainstBounds {
            let left = (transfer.admitted + .seconds(bounds.slowAfter)) - now
            soonest = min(soonest, Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18)
        }
        return Int32(max(1, min(10_000, (soonest * 1000).rounded(.up))))
    }

    private func admit(_ transfer: Transfer) {
        guard !transfer.unbounded else { return }
        counted += 1
        countedPerHost[transfer.host, default: 0] += 1
        runningPerHost[transfer.host, default: 0] += 1
    }

    private func release(_ transfer: Transfer) {
        guard !transfer.unbounded else { return }
        if transfer.countsAgainstBounds {
            counted -= 1
            countedPerHost[transfer.host, default: 1] -= 1
            if countedPerHost[transfer.host] == 0 { countedPerHost[transfer.host] = nil }
        } else {
            slow -= 1
        }
        runningPerHost[transfer.host, default: 1] -= 1
        if runningPerHost[transfer.host] == 0 { runningPerHost[transfer.host] = nil }
    }

    /// A redirect to another host moves the transfer's place in the per-host counts.
    private func move(_ transfer: Transfer, to host: HostKey) {
        guard host != transfer.host else { return }
        guard !transfer.unbounded else {
            transfer.host = host
            return
        }
        release(transfer)
        let countsAgainstBounds = transfer.countsAgainstBounds
        transfer.host = host
        if countsAgainstBounds {
            admit(transfer)
        } else {
            slow += 1
            runningPerHost[host, default: 0] += 1
        }
    }

    private func start(_ job: FetchJob) {
        if job.cancel.isSet {
            return job.complete(.failure(FetchError(url: job.request.url, kind: .cancelled, reason: "cancelled")))
        }
        var failure: FetchError?
        guard let transfer = Transfer(job: job, userAgent: userAgent, addresses: addresses, failure: &failure) else {
            return job.complete(.failure(failure ?? FetchError(url: job.request.url, kind: .connection, reason: "libcurl failed")))
        }
        if let error = transfer.prepareHop(job.request.url, first: true) {
            return job.complete(.failure(error))
        }
        transfer.host = job.host
        transfer.admitted = clock.now
        transfer.unbounded = job.stream != nil
        transfer.countsAgainstBounds = !transfer.unbounded
        admit(transfer)
        active[transfer.easy] = transfer
        if feedctl_curl_multi_add_handle(multi, transfer.easy) != CURLM_OK {
            end(transfer, .failure(FetchError(url: job.request.url, kind: .connection, reason: "libcurl refused the transfer")))
        }
    }

    /// Handles every hop libcurl reports done. True if anything changed.
    private func collectFinished() -> Bool {
        var changed = false
        var left: Int32 = 0
        while let message = feedctl_curl_multi_info_read(multi, &left) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                  let transfer = active[easy] else { continue }
            let code = message.pointee.data.result  // read before the handle is removed
            changed = true
            switch transfer.finish(code) {
            case .finished(let result):
                end(transfer, result)
            case .redirect(let next):
                // Same handle, next URL: the connection cache still applies.
                feedctl_curl_multi_remove_handle(multi, easy)
                if let error = transfer.prepareHop(next, first: false) {
                    active[easy] = nil
                    release(transfer)
                    transfer.job.complete(.failure(error))
                } else {
                    move(transfer, to: HostKey(next))
                    if feedctl_curl_multi_add_handle(multi, easy) != CURLM_OK {
                        active[easy] = nil
                        release(transfer)
                        transfer.job.complete(.failure(FetchError(url: transfer.job.request.url, kind: .connection, reason: "libcurl refused the redirect")))
                    }
                }
            }
        }
        return changed
    }

    private func sweepCancelled() {
        for transfer in Array(active.values) where transfer.job.cancel.isSet {
            end(transfer, .failure(transfer.cancelled()))
        }
        let waiting = queue[queueHead...]
        queue = waiting.filter { !$0.cancel.isSet }
        queueHead = 0
        for job in waiting where job.cancel.isSet {
            job.complete(.failure(FetchError(url: job.request.url, kind: .cancelled, reason: "cancelled")))
        }
    }

    /// Takes the transfer off the multi handle (which frees its handle) and reports the result.
    private func end(_ transfer: Transfer, _ result: Result<FetchResponse, FetchError>) {
        feedctl_curl_multi_remove_handle(multi, transfer.easy)
        if active.removeValue(forKey: transfer.easy) != nil { release(transfer) }
        transfer.job.complete(result)
    }
}
