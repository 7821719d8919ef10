/// The status line and header fields of a streamed response (its final hop's).
public struct StreamHead: Sendable, Equatable {
    public var status: Int
    /// The URL the body comes from, after redirects.
    public var finalURL: String
    /// Names lowercased; repeated fields joined with ", ".
    public var headers: [String: String]
}

/// A response read as it arrives (`Fetcher.stream`), for a body too large or too long-lived to
/// hold: a proxied episode. The fetch loop hands chunks to a bounded buffer; when the reader
/// falls behind, the transfer is paused (`CURL_WRITEFUNC_PAUSE`) and resumed by the loop once
/// the reader has taken half of it (`curl_easy_pause` on the loop's own thread: the handle keeps
/// its one owner). So memory per stream is bounded by the buffer, whatever the reader's pace.
/// Releasing the stream or calling `cancel()` stops the transfer.
public final class FetchStream: Sendable {
    public let head: StreamHead
    private let sink: StreamSink
    private let stop: @Sendable () -> Void
    /// The transfer runs on this fetcher's thread: kept alive while the stream is.
    private let fetcher: Fetcher

    init(head: StreamHead, sink: StreamSink, fetcher: Fetcher, stop: @escaping @Sendable () -> Void) {
        self.head = head; self.sink = sink; self.fetcher = fetcher; self.stop = stop
    }

    deinit { stop() }

    /// The body's next chunk, nil after the last; throws when the transfer failed (a stall, the
    /// connection lost, cancelled). Cancelling the calling task stops the transfer.
    public func next() async throws(FetchError) -> [UInt8]? {
        let stop = self.stop
        let result = await withTaskCancellationHandler { await sink.next() } onCancel: { stop() }
        return try result.get()
    }

    /// Stops the transfer (the reader left); `next()` then throws `.cancelled`.
    public func cancel() { stop() }

    /// Bytes received and not yet read.
    var buffered: Int { sink.buffered }
}

/// Where the fetch loop puts a streamed body, and where its reader takes it from.
final class StreamSink: Sendable {
    private struct State: Sendable {
        var head: Result<StreamHead, FetchError>?
        var headWaiter: CheckedContinuation<Result<StreamHead, FetchError>, Never>?
        var chunks: [[UInt8]] = []
        var buffered = 0
        /// The loop refused a chunk (the buffer was full) and paused the transfer.
        var paused = false
        /// The reader took enough for the loop to resume it.
        var resumeAsked = false
        var end: Result<Void, FetchError>?
        var waiter: CheckedContinuation<Void, Never>?
    }

    /// Bytes held before the transfer is paused.
    let capacity: Int
    private let state = Locked(State())
    /// Asks the loop to resume paused transfers (`FetchInbox.resumeStreams`).
    private let wake: @Sendable () -> Void

    init(capacity: Int, wake: @escaping @Sendable () -> Void) {
        self.capacity = max(1, capacity); self.wake = wake
    }

    // MARK: the loop's side (its thread only)

    /// The final response's head arrived (a 2xx): the body follows.
    func begin(_ head: StreamHead) {
        state.withLock { state in
            guard state.head == nil else { return }
            state.head = .success(head)
            state.headWaiter?.resume(returning: .success(head))
            state.headWaiter = nil
        }
    }

    /// Takes a chunk, or refuses it (false) when the buffer is full: the transfer pauses, and
    /// libcurl hands the same bytes again once resumed.
    func offer(_ data: UnsafeRawBufferPointer) -> Bool {
        state.withLock { state in
            guard state.buffered < capacity else {
                state.paused = true
                return false
            }
            state.chunks.append(Array(data))
            state.buffered += data.count
            state.waiter?.resume()
            state.waiter = nil
            return true
        }
    }

    /// The transfer ended: its result (a response that never began, an error answer or a
    /// failure, is the head's result).
    func complete(_ result: Result<FetchResponse, FetchError>) {
        state.withLock { state in
            if state.head == nil {
                let head = result.map { StreamHead(status: $0.status, finalURL: $0.finalURL, headers: $0.headers) }
                state.head = head
                state.headWaiter?.resume(returning: head)
                state.headWaiter = nil
            }
            state.end = result.map { _ in () }
            state.waiter?.resume()
            state.waiter = nil
        }
    }

    /// Whether the loop should resume the paused transfer now (it is then no longer paused).
    func takeResume() -> Bool {
        state.withLock { state in
            guard state.paused, state.resumeAsked else { return false }
            state.paused = false
            state.resumeAsked = false
            return true
        }
    }

    // MARK: the reader's side

    var buffered: Int { state.withLock { $0.buffered } }

    func head() async -> Result<StreamHead, FetchError> {
        await withCheckedContinuation { continuation in
            state.withLock { state in
                if let head = state.head { continuation.resume(returning: head) } else { state.headWaiter = continuation }
            }
        }
    }

    func next() async -> Result<[UInt8]?, FetchError> {
        while true {
            enum Step { case chunk([UInt8], wake: Bool), ended(Result<Void, FetchError>), wait }
            let step: Step = state.withLock { state in
                if !state.chunks.isEmpty {
                    let chunk = state.chunks.removeFirst()
                    state.buffered -= chunk.count
                    let wake = state.paused && !state.resumeAsked && state.buffered <= capacity / 2
                    if wake { state.resumeAsked = true }
                    return .chunk(chunk, wake: wake)
                }
                if let end = state.end { return .ended(end) }
                return .wait
            }
            switch step {
            case .chunk(let chunk, let wake):
                if wake { self.wake() }
                return .success(chunk)
            case .ended(let end):
                return end.map { nil }
            case .wait:
                await withCheckedContinuation { continuation in
                    state.withLock { state in
                        if !state.chunks.isEmpty || state.end != nil { continuation.resume() } else { state.waiter = continuation }
                    }
                }
            }
        }
    }
}
