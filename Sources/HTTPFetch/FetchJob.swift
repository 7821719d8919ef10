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
}

/// Set from any thread when the caller gives up; the loop checks it when it starts the job and
/// whenever the inbox asks it to sweep.
final class CancelFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    var isSet: Bool { flag.load(ordering: .acquiring) }
    func set() { flag.store(true, ordering: .releasing) }
}
