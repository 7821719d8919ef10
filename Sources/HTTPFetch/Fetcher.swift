import CCurl
import FeedModel
import Foundation
import Synchronization

/// An HTTP(S) GET client over libcurl, for feeds and pages.
///
/// Design: one dedicated thread per fetcher runs libcurl's multi interface (`FetchLoop`). Every
/// curl handle is created, used and freed on that thread, so no C handle crosses threads and
/// no lock guards libcurl; callers only post jobs to a locked inbox (`FetchInbox`) and wake the loop
/// with `curl_multi_wakeup`. The async API bridges with a continuation resumed from the loop.
/// One multi handle means one connection cache and DNS cache: requests to the same host reuse
/// connections (HTTP/1.1 keep-alive, HTTP/2 multiplexing). At most `concurrency` transfers run
/// at once, at most `bounds.connectionsPerHost` of them to one host; the rest wait in order. A
/// transfer still running after `bounds.slowAfter` seconds stops counting, so one slow server
/// never holds up the feeds behind it (see `FetchLoop`). A thread and a poll loop cost less than a pool of blocking
/// `curl_easy_perform` threads, and the bound is one number instead of a pool size.
///
/// Every fetch is bounded: protocols (http/https only, redirects included), redirects, connect
/// and total time, stalls (below 1 byte/s), and body size (checked while streaming, decoded).
/// HTTP errors (≥ 400) are `FetchError`s; a 304 is a `FetchResponse` with `notModified`.
///
/// The fetcher lives as long as a call on it is in progress; when the last reference goes,
/// the thread stops and frees libcurl.
public final class Fetcher: Sendable {
    public static let defaultUserAgent = "feedctl/0.1 (+https://github.com/feedctl/feedctl)"

    /// The process's client: one connection and DNS cache for everything it fetches (feeds,
    /// pages, chapters files, episodes). Made on first use: libcurl's global init loads OpenSSL
    /// (~2 MB resident), which a daemon that only plays files never needs.
    public static let shared = Fetcher()
    /// The process's client for what may reach only public addresses (`AddressReach.publicOnly`),
    /// made on first use. Its own connections: one that `shared` opened to a private address is
    /// never reused for it (a reused connection is not connected again, so it is not checked again).
    public static let publicOnly = Fetcher(addresses: .publicOnly)

    public let concurrency: Int
    public let bounds: FetchBounds
    public let userAgent: String
    /// Which addresses it connects to (`.publicOnly`: the server's fetches for its clients).
    public let addresses: AddressPolicy
    private let inbox: FetchInbox

    /// `curl_global_init` is not safe to race with other libcurl calls: run it once, first.
    private static let curlReady: Bool = feedctl_curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    public init(concurrency: Int = 12, userAgent: String = Fetcher.defaultUserAgent, bounds: FetchBounds = .default,
                addresses: AddressPolicy = .any) {
        self.concurrency = max(1, concurrency)
        self.bounds = bounds
        self.userAgent = userAgent
        self.addresses = addresses
        let multi = Self.curlReady ? feedctl_curl_multi_init() : nil
        inbox = FetchInbox(multi: multi)
        guard let multi else { return }  // every fetch will fail with "libcurl is not available"
        let handle = LoopStart(multi: multi, inbox: inbox, concurrency: self.concurrency, bounds: bounds, userAgent: userAgent,
                               addresses: addresses)
        let thread = Thread { handle.run() }
        thread.name = "feedctl.fetch"
        thread.start()
    }

    deinit { inbox.stop() }

    /// The client for a fetch that may reach `reach`: this one for any address, else the
    /// public-only one (`publicOnly`). Every fetch made for a subscription picks its client here.
    public func reaching(_ reach: AddressReach) -> Fetcher {
        reach == .anyAddress ? self : .publicOnly
    }

    /// Fetches one URL. Cancelling the task aborts the transfer with `.cancelled`.
    public func fetch(_ request: FetchRequest) async throws(FetchError) -> FetchResponse {
        try await perform(request, download: nil)
    }

    /// Streams one URL's body into the file at `path` instead of memory (the response's `body`
    /// stays empty), for offline episodes. With `resume` and a non-empty file there, it asks for
    /// the rest (`Range: bytes=SIZE-`): a 206 continuing at SIZE is appended, a 200 rewrites
    /// the file, and a 416 whose `Content-Range` total is SIZE means it was already complete
    /// (returned as a 416 response). Redirect and error bodies never touch the file, and a
    /// failure leaves the partial file for the next attempt. `maxBytes` caps the file's size.
    /// `progress` gets (bytes in the file, expected total) after each write, on the fetch
    /// thread: keep it quick.
    public func download(_ request: FetchRequest, to path: String, resume: Bool = true,
                         progress: (@Sendable (_ received: Int64, _ total: Int64?) -> Void)? = nil)
        async throws(FetchError) -> FetchResponse {
        try await perform(request, download: DownloadTarget(path: path, resume: resume, progress: progress))
    }

    private func perform(_ request: FetchRequest, download: DownloadTarget?) async throws(FetchError) -> FetchResponse {
        let cancel = CancelFlag()
        let inbox = self.inbox
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<FetchResponse, FetchError>, Never>) in
                submit(FetchJob(request: request, cancel: cancel, download: download) { continuation.resume(returning: $0) })
            }
        } onCancel: {
            cancel.set()
            inbox.sweep()
        }
        return try result.get()
    }

    /// Streams one URL's body (`FetchStream`): answers once the final response's head arrived
    /// (after redirects, each hop checked as every fetch is), then the body chunk by chunk,
    /// at most `buffer` bytes held while the reader is behind. Only a 2xx is streamed; an error
    /// status is a `FetchError` as for `fetch`. No `Accept-Encoding` is sent, so the bytes and
    /// their `Content-Length`/`Content-Range` are the origin's own. Set `totalTimeout` to
    /// `.infinity` for a body that may take hours (the connect and stall timeouts still hold;
    /// a transfer paused for its reader is not stalled). A stream is not counted against the
    /// fetcher's slots (it may run for an hour): its caller bounds how many run.
    public func stream(_ request: FetchRequest, buffer: Int = 256 * 1024) async throws(FetchError) -> FetchStream {
        let cancel = CancelFlag()
        let inbox = self.inbox
        let sink = StreamSink(capacity: buffer) { inbox.resumeStreams() }
        let stop: @Sendable () -> Void = {
            cancel.set()
            inbox.sweep()
        }
        submit(FetchJob(request: request, cancel: cancel, stream: sink) { sink.complete($0) })
        let head = await withTaskCancellationHandler { await sink.head() } onCancel: { stop() }
        switch head {
        case .success(let head):
            return FetchStream(head: head, sink: sink, fetcher: self, stop: stop)
        case .failure(let error):
            stop()
            throw error
        }
    }

    /// Fetches many URLs, at most `concurrency` at a time, yielding each result as it completes
    /// with the index of its request. The stream ends after the last result; dropping or
    /// cancelling it aborts the transfers still running.
    public func fetchAll(_ requests: [FetchRequest]) -> AsyncStream<(index: Int, result: Result<FetchResponse, FetchError>)> {
        let (stream, continuation) = AsyncStream.makeStream(of: (index: Int, result: Result<FetchResponse, FetchError>).self)
        guard !requests.isEmpty else {
            continuation.finish()
            return stream
        }
        let flags = requests.map { _ in CancelFlag() }
        let counter = Counter(requests.count)
        for (index, request) in requests.enumerated() {
            // The completion holds the fetcher, so it outlives the stream's transfers.
            submit(FetchJob(request: request, cancel: flags[index]) { result in
                _ = self
                continuation.yield((index, result))
                if counter.decrement() == 0 { continuation.finish() }
            })
        }
        let inbox = self.inbox
        continuation.onTermination = { termination in
            guard case .cancelled = termination else { return }
            flags.forEach { $0.set() }
            inbox.sweep()
        }
        return stream
    }

    /// Fetches one URL, blocking the calling thread: for the CLI's one-shot `parse URL`.
    /// Never call it from a completion running on the fetch thread.
    public func fetchBlocking(_ request: FetchRequest) throws(FetchError) -> FetchResponse {
        let done = DispatchSemaphore(value: 0)
        let box = Locked<Result<FetchResponse, FetchError>?>(nil)
        submit(FetchJob(request: request, cancel: CancelFlag()) { result in
            box.withLock { $0 = result }
            done.signal()
        })
        done.wait()
        let result = box.withLock { $0 } ?? .failure(FetchError(url: request.url, kind: .cancelled, reason: "no result"))
        return try result.get()
    }

    private func submit(_ job: FetchJob) {
        if let problem = Transfer.checkURL(job.request.url) {
            return job.complete(.failure(FetchError(url: job.request.url, kind: problem.kind, reason: problem.reason)))
        }
        if !inbox.post(job) {
            job.complete(.failure(FetchError(url: job.request.url, kind: .connection, reason: "libcurl is not available")))
        }
    }
}

/// What the fetch thread needs to build its loop. Sendable by hand: the multi handle is handed
/// over once, before the thread starts, and only the thread uses it afterwards (besides the
/// inbox's thread-safe `curl_multi_wakeup`).
private struct LoopStart: @unchecked Sendable {
    let multi: UnsafeMutableRawPointer
    let inbox: FetchInbox
    let concurrency: Int
    let bounds: FetchBounds
    let userAgent: String
    let addresses: AddressPolicy

    func run() {
        FetchLoop(multi: multi, inbox: inbox, concurrency: concurrency, bounds: bounds, userAgent: userAgent, addresses: addresses).run()
    }
}

/// Counts completions down to the end of a `fetchAll` stream.
private final class Counter: Sendable {
    private let value: Atomic<Int>
    init(_ start: Int) { value = Atomic(start) }
    func decrement() -> Int { value.subtract(1, ordering: .acquiringAndReleasing).newValue }
}
