import CCurl

/// The thread that owns libcurl: one multi handle, the transfers on it, the queue of jobs
/// waiting for a slot. No curl handle is touched by any other thread; jobs arrive through the
/// `FetchInbox` and results leave through each job's completion.
final class FetchLoop {
    private let multi: UnsafeMutableRawPointer
    private let inbox: FetchInbox
    private let concurrency: Int
    private let userAgent: String
    private var queue: [FetchJob] = []
    private var queueHead = 0
    private var active: [UnsafeMutableRawPointer: Transfer] = [:]

    init(multi: UnsafeMutableRawPointer, inbox: FetchInbox, concurrency: Int, userAgent: String) {
        self.multi = multi
        self.inbox = inbox
        self.concurrency = concurrency
        self.userAgent = userAgent
        // Idle connections kept for reuse; libcurl's default (4 per added handle) shrinks
        // when the loop is idle, which would close them between syncs of the same host.
        _ = feedctl_curl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, max(16, concurrency * 2))
    }

    /// Runs until the inbox says stop, then fails whatever is left and frees the multi handle.
    func run() {
        while true {
            let batch = inbox.take()
            queue.append(contentsOf: batch.jobs)
            if batch.stop { break }
            if batch.sweep { sweepCancelled() }
            startQueued()
            var running: Int32 = 0
            _ = feedctl_curl_multi_perform(multi, &running)
            if collectFinished() { continue }  // slots freed or redirects re-added: go again
            // Sleeps until a socket is ready, libcurl's next timeout, or `curl_multi_wakeup`.
            _ = feedctl_curl_multi_poll(multi, nil, 0, 10_000, nil)
        }
        for transfer in Array(active.values) { end(transfer, .failure(transfer.cancelled())) }
        let stranded = queue[queueHead...] + inbox.close()
        for job in stranded {
            job.complete(.failure(FetchError(url: job.request.url, kind: .cancelled, reason: "cancelled: the fetcher shut down")))
        }
        feedctl_curl_multi_cleanup(multi)
    }

    /// Moves queued jobs onto the multi handle while there are free slots.
    private func startQueued() {
        while active.count < concurrency, queueHead < queue.count {
            let job = queue[queueHead]
            queueHead += 1
            start(job)
        }
        if queueHead == queue.count {
            queue.removeAll(keepingCapacity: true)
            queueHead = 0
        }
    }

    private func start(_ job: FetchJob) {
        if job.cancel.isSet {
            return job.complete(.failure(FetchError(url: job.request.url, kind: .cancelled, reason: "cancelled")))
        }
        var failure: FetchError?
        guard let transfer = Transfer(job: job, userAgent: userAgent, failure: &failure) else {
            return job.complete(.failure(failure ?? FetchError(url: job.request.url, kind: .connection, reason: "libcurl failed")))
        }
        if let error = transfer.prepareHop(job.request.url, first: true) {
            return job.complete(.failure(error))
        }
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
                    transfer.job.complete(.failure(error))
                } else if feedctl_curl_multi_add_handle(multi, easy) != CURLM_OK {
                    active[easy] = nil
                    transfer.job.complete(.failure(FetchError(url: transfer.job.request.url, kind: .connection, reason: "libcurl refused the redirect")))
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
        active[transfer.easy] = nil
        transfer.job.complete(result)
    }
}
