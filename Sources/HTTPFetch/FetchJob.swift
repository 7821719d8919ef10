import Synchronization

/// A request handed to the fetch loop, with where its result goes.
struct FetchJob: Sendable {
    let request: FetchRequest
    let cancel: CancelFlag
    /// Set for `Fetcher.download`: stream the body into a file.
    var download: DownloadTarget? = nil
    /// Set for `Fetcher.stream`: hand the body to this reader as it arrives.
    var stream: StreamSink? = nil
    /// Called once, on the fetch loop's thread: must be quick and must not block on the fetcher.
    let complete: @Sendable (Result<FetchResponse, FetchError>) -> Void
    /// The host the per-host bounds count it against, found once: the loop looks at every
    /// waiting job each time a transfer ends (a sync of 200 feeds on one host found it 20,000
    /// times a round).
    let host: HostKey

    init(request: FetchRequest, cancel: CancelFlag, download: DownloadTarget? = nil, stream: StreamSink? = nil,
         complete: @escaping @Sendable (Result<FetchResponse, FetchError>) -> Void) {
        self.request = request; self.cancel = cancel; self.download = download; self.stream = stream
        self.complete = complete
        host = HostKey(request.url)
    }
}

/// Set from any thread when the caller gives up; the loop checks it when it starts the job and
/// whenever the inbox asks it to sweep.
final class CancelFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    var isSet: Bool { flag.load(ordering: .acquiring) }
    func set() { flag.store(true, ordering: .releasing) }
}
