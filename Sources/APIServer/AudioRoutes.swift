import Downloads
import FeedModel
import Foundation
import HTTPFetch
import Hummingbird
import LibraryStore
import NIOCore
import Synchronization

/// `GET /api/items/{id}/audio`: what the web app's `<audio>` element plays, for any item the
/// user can see (another user's is 404, as everywhere).
///
/// - A downloaded episode (`feedctl download`, the `Downloads` media directory) is served from
///   its file, with byte ranges, read by NIO's thread pool (`FileIO`), never on an event loop.
/// - Anything else is proxied: the server fetches the media and streams it on, the client's
///   `Range` passed through, never held whole (`Fetcher.stream`). Proxied, not redirected,
///   because a same-origin answer is what the web app can keep for offline listening (Cache
///   Storage needs same-origin or CORS, which feeds' media hosts rarely send), because an
///   `http:` enclosure would be mixed content on a server behind TLS, and because a YouTube
///   audio URL that yt-dlp resolved is bound to the address that resolved it: the server's.
///   Every connection the proxy makes is checked as the item's sync is (`Fetcher.reaching`,
///   within the server's reach and the channel's), redirects included; streams are counted
///   per user and in all (`AudioProxyLimits`), and one stops when its client leaves.
/// - YouTube and Rumble items are resolved with yt-dlp as the daemon resolves them
///   (`YTDLP.audioURL`), the answer kept while it is valid (`ResolvedAudioURLs`).
struct AudioRoutes {
    /// The server's fetcher and what it may reach (`FeedURLPolicy.reach`).
    let fetcher: Fetcher
    let reach: AddressReach
    /// Where downloads are; nil: none are served (no media directory was given).
    let downloads: DownloadStore?
    let streams: AudioStreamGate
    let resolved: ResolvedAudioURLs
    /// The server's connections: a stream stops when its client has left.
    let connections: ClientConnections?
    let clock: @Sendable () -> Int64

    func add(to group: RouterGroup<APIRequestContext>) {
        group.get("items/:id/audio") { request, context in try await audio(request, context, headOnly: false) }
        group.head("items/:id/audio") { request, context in try await audio(request, context, headOnly: true) }
    }

    func audio(_ request: Request, _ context: APIRequestContext, headOnly: Bool) async throws -> Response {
        let id = try pathID(context)
        let library = try context.library()
        let item = try await FeedRoutes.library { () async throws(LibraryError) in try await library.item(id: id) }
        if let downloads, let path = await TokenAuthenticator.offLoop({ downloads.completedFile(item: id) }) {
            return try await DownloadedFile.response(path: path, request: request, context: context, headOnly: headOnly)
        }
        let channel = try await FeedRoutes.library { () async throws(LibraryError) in try await library.playbackSettings(channelID: item.channelID) }
        let source: MediaSource
        if let enclosure = item.enclosureURL {
            source = MediaSource(url: enclosure)
        } else if let page = item.url, item.platform.playsThroughPageResolver {
            let found = try await resolved.url(item: id, page: page, now: clock())
            source = MediaSource(url: found.url, page: page, kept: found.kept)
        } else {
            throw APIError.notFound("item \(id) has no media to play")
        }
        return try await proxy(source, item: id, reach: reach.narrowed(to: channel.reach), request: request, context: context,
                               headOnly: headOnly)
    }

    private struct MediaSource {
        var url: String
        /// The page yt-dlp resolved it from: forgotten when its host refuses it.
        var page: String? = nil
        /// Resolved earlier and kept: resolved again (once) when its host refuses it.
        var kept = false
    }

    /// The media at `source`, streamed on as it arrives.
    private func proxy(_ source: MediaSource, item: Int64, reach: AddressReach, request: Request, context: APIRequestContext,
                       headOnly: Bool) async throws -> Response {
        let user = context.user?.id ?? .owner
        let ticket = try streams.enter(user)
        var fetch = FetchRequest(url: source.url, maxBytes: Int.max, connectTimeout: AudioProxyLimits.connectSeconds,
                                 totalTimeout: .infinity, stallTimeout: AudioProxyLimits.stallSeconds, maxRedirects: 10)
        if let range = ByteRange(header: request.headers[.range]) { fetch.headers["Range"] = range.header }
        let fetcher = fetcher.reaching(reach)
        let upstream: FetchStream
        do {
            upstream = try await fetcher.stream(fetch, buffer: AudioProxyLimits.bufferBytes)
        } catch {
            guard let page = source.page, case .http = error.kind else { throw APIError(proxying: error) }
            await resolved.forget(item: item)
            guard source.kept else { throw APIError(proxying: error) }
            // A kept URL its host no longer takes (expired early, or bound elsewhere): resolved again, once.
            fetch.url = try await resolved.url(item: item, page: page, now: clock()).url
            do {
                upstream = try await fetcher.stream(fetch, buffer: AudioProxyLimits.bufferBytes)
            } catch {
                throw APIError(proxying: error)
            }
        }
        var headers = HTTPFields()
        // What a media element and a cache need of the host's answer; nothing else is passed on.
        let from = upstream.head.headers
        headers[.contentType] = AudioAnswer.mediaType(from["content-type"])
        AudioAnswer.confine(&headers)
        headers[.contentLength] = from["content-length"]
        headers[.contentRange] = from["content-range"]
        headers[.acceptRanges] = from["accept-ranges"]
        headers[.lastModified] = from["last-modified"]
        headers[.eTag] = from["etag"]
        // Bytes are passed as they came (no Accept-Encoding is sent, but a host may encode anyway).
        headers[.contentEncoding] = from["content-encoding"]
        let status = HTTPResponse.Status(code: upstream.head.status)
        if headOnly {
            upstream.cancel()
            ticket.release()
            return Response(status: status, headers: headers, body: ResponseBody())
        }
        let (connection, connections, idle) = (context.connection, connections, streams.listenerIdle)
        let length = upstream.head.headers["content-length"].flatMap(Int.init)
        return Response(status: status, headers: headers, body: ResponseBody(contentLength: length) { writer in
            defer {
                upstream.cancel()
                ticket.release()
            }
            let listener = ListenerProgress()
            // The client may leave while the media's host is slow to send, or stay without
            // reading (a paused player): look now and then.
            let watch = Task {
                while !Task.isCancelled {
                    guard let connection else { return }
                    if connections?.clientLeft(connection) ?? !connection.isActive {
                        upstream.cancel()
                        return
                    }
                    if listener.idle(for: idle) {
                        upstream.cancel()
                        connection.close(promise: nil)
                        return
                    }
                    try? await Task.sleep(for: min(OffLoopMiddleware.clientCheckInterval, idle / 2))
                }
            }
            defer { watch.cancel() }
            while let chunk = try await upstream.next() {
                listener.waiting()
                try await writer.write(ByteBuffer(bytes: chunk))
                listener.took()
            }
            try await writer.finish(nil)
        })
    }
}

/// Whether a stream's listener has been taking nothing: the answer has waited on it since.
private final class ListenerProgress: Sendable {
    private let waitingSince = Atomic<UInt64>(0)

    func waiting() { waitingSince.store(DispatchTime.now().uptimeNanoseconds, ordering: .releasing) }
    func took() { waitingSince.store(0, ordering: .releasing) }

    func idle(for limit: Duration) -> Bool {
        let since = waitingSince.load(ordering: .acquiring)
        guard since > 0 else { return false }
        let waited = Duration.nanoseconds(Int64(DispatchTime.now().uptimeNanoseconds &- since))
        return waited >= limit
    }
}

/// A downloaded episode's file, as an answer: ranges, HEAD, its media type.
enum DownloadedFile {
    static func response(path: String, request: Request, context: APIRequestContext, headOnly: Bool) async throws -> Response {
        let size = await TokenAuthenticator.offLoop { () -> Int64? in
            var info = stat()
            return stat(path, &info) == 0 ? Int64(info.st_size) : nil
        }
        guard let size else { throw APIError.notFound("the downloaded file is gone") }
        var headers = HTTPFields()
        headers[.acceptRanges] = "bytes"
        headers[.contentType] = AudioAnswer.mediaType(mediaType(of: path))
        AudioAnswer.confine(&headers)
        var status = HTTPResponse.Status.ok
        var bytes: ClosedRange<Int64>? = size > 0 ? 0...(size - 1) : nil
        if let range = ByteRange(header: request.headers[.range]) {
            guard let part = range.bytes(of: size) else {
                headers[.contentRange] = "bytes */\(size)"
                var error = APIError(.rangeNotSatisfiable, "the range \(range.header) is past the file's \(size) bytes")
                error.headers = headers
                throw error
            }
            status = .partialContent
            bytes = part
            headers[.contentRange] = "bytes \(part.lowerBound)-\(part.upperBound)/\(size)"
        }
        headers[.contentLength] = String(bytes.map { $0.upperBound - $0.lowerBound + 1 } ?? 0)
        guard let bytes, !headOnly else { return Response(status: status, headers: headers, body: ResponseBody()) }
        let body = try await FileIO().loadFile(path: path, range: Int(bytes.lowerBound)...Int(bytes.upperBound), context: context)
        return Response(status: status, headers: headers, body: body)
    }

    /// From the file's extension (a download is named by its media type: `DownloadName`).
    static func mediaType(of path: String) -> String {
        let ext = (path as NSString).pathExtension.lowercased()
        if let known = ["m4a": "audio/mp4", "m4v": "video/mp4", "opus": "audio/ogg", "oga": "audio/ogg"][ext] { return known }
        return MediaType.getMediaType(forExtension: ext)?.description ?? "application/octet-stream"
    }
}

/// What every audio answer says of its bytes. They come from a feed's media host (or were saved
/// from one), untrusted, and are served from the app's own origin: a host that answers
/// `text/html` with a script must not have it run there (the session cookie's site). Only media
/// types are passed on, anything else is `application/octet-stream`, and the answer is sandboxed
/// should a browser open it as a page.
enum AudioAnswer {
    static func mediaType(_ declared: String?) -> String {
        guard let declared else { return "application/octet-stream" }
        let type = declared.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        let media = type.hasPrefix("audio/") || type.hasPrefix("video/") || type == "application/ogg"
        return media && !type.contains(where: { $0.isWhitespace || $0 == "," }) ? declared : "application/octet-stream"
    }

    static func confine(_ headers: inout HTTPFields) {
        headers[.contentSecurityPolicy] = "default-src 'none'; sandbox"
    }
}

/// How many proxied streams are open, per user and in all (`AudioProxyLimits`).
final class AudioStreamGate: Sendable {
    /// One open stream; `release()` (once, however often called, and at the latest when the
    /// ticket goes: an answer dropped unsent) frees its place.
    final class Ticket: Sendable {
        private let done: @Sendable () -> Void
        init(done: @escaping @Sendable () -> Void) { self.done = done }
        func release() { done() }
        deinit { done() }
    }

    private struct State { var total = 0; var perUser: [UserID: Int] = [:] }
    private let state = Mutex(State())
    let perUser: Int
    let total: Int
    let listenerIdle: Duration

    init(_ limits: AudioStreamLimits) {
        perUser = limits.perUser; total = limits.total
        listenerIdle = .milliseconds(Int64(max(0.1, limits.listenerIdleSeconds) * 1000))
    }

    /// A stream for `user`, or the answer past a bound: 429 for the user's, 503 for the server's.
    func enter(_ user: UserID) throws(APIError) -> Ticket {
        let refusal: APIError? = state.withLock { state in
            if state.perUser[user, default: 0] >= perUser {
                return APIError.tooManyRequests("you are already playing \(perUser) streams through the server; stop one and try again",
                                                retryAfter: 5)
            }
            if state.total >= total {
                var error = APIError(.serviceUnavailable, "the server is streaming as much audio as it may (\(total) streams); try again shortly")
                error.retryAfter = 5
                return error
            }
            state.total += 1
            state.perUser[user, default: 0] += 1
            return nil
        }
        if let refusal { throw refusal }
        let released = Atomic(false)
        return Ticket { [self] in
            guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
            state.withLock { state in
                state.total -= 1
                let left = state.perUser[user, default: 1] - 1
                state.perUser[user] = left > 0 ? left : nil
            }
        }
    }

    var open: Int { state.withLock { $0.total } }
}

/// How many `/api/items/{id}/audio` streams the server proxies at once: per user and in all.
public struct AudioStreamLimits: Sendable {
    public var perUser: Int
    public var total: Int
    /// Seconds a listener may take nothing before its stream is closed (tests shorten it).
    public var listenerIdleSeconds: Double

    public init(perUser: Int = AudioProxyLimits.streamsPerUser, total: Int = AudioProxyLimits.streams,
                listenerIdleSeconds: Double = AudioProxyLimits.listenerIdleSeconds) {
        self.perUser = perUser; self.total = total; self.listenerIdleSeconds = listenerIdleSeconds
    }
}

/// YouTube and Rumble items' audio URLs as yt-dlp resolved them, kept while they are valid
/// (YouTube's say until when: `expire=`; others for `AudioProxyLimits.resolvedURLSeconds`), the
/// most recently used `AudioProxyLimits.resolvedURLs` of them.
actor ResolvedAudioURLs {
    private struct Entry { var page: String; var url: String; var validUntil: Int64; var used: UInt64 }
    private var entries: [Int64: Entry] = [:]
    /// Resolutions under way: a player's first requests for an item (it often opens two at
    /// once) share one yt-dlp run.
    private var resolving: [String: Task<Result<String, YTDLPError>, Never>] = [:]
    private var uses: UInt64 = 0
    private let capacity: Int
    private let ytdlpTimeout: Double

    init(capacity: Int = AudioProxyLimits.resolvedURLs, ytdlpTimeout: Double = 60) {
        self.capacity = capacity; self.ytdlpTimeout = ytdlpTimeout
    }

    /// The audio URL of `item`'s `page`, and whether it was kept from an earlier resolution.
    func url(item: Int64, page: String, now: Int64) async throws(APIError) -> (url: String, kept: Bool) {
        uses += 1
        if let entry = entries[item], entry.page == page, entry.validUntil > now {
            entries[item]?.used = uses
            return (entry.url, true)
        }
        let run = resolving[page] ?? Task { [ytdlpTimeout] () -> Result<String, YTDLPError> in
            do throws(YTDLPError) {
                return .success(try await YTDLP.audioResolver(timeout: ytdlpTimeout).audioURL(ofPage: page))
            } catch {
                return .failure(error)
            }
        }
        resolving[page] = run
        let result = await run.value
        resolving[page] = nil
        let url: String
        switch result {
        case .success(let resolved): url = resolved
        case .failure(let error): throw APIError(.badGateway, error.description)
        }
        entries[item] = Entry(page: page, url: url, validUntil: Self.validUntil(url, now: now), used: uses)
        if entries.count > capacity, let oldest = entries.min(by: { $0.value.used < $1.value.used })?.key {
            entries[oldest] = nil
        }
        return (url, false)
    }

    /// Its host refused it (expired, or bound elsewhere): the next request resolves it again.
    func forget(item: Int64) { entries[item] = nil }

    var count: Int { entries.count }

    static func validUntil(_ url: String, now: Int64) -> Int64 {
        let expiry = URLComponents(string: url)?.queryItems?.first { $0.name == "expire" }?.value.flatMap { Int64($0) }
        return min(now + AudioProxyLimits.resolvedURLSeconds, expiry.map { $0 - AudioProxyLimits.resolvedURLMargin } ?? .max)
    }
}

extension APIError {
    /// A failed proxied fetch, by its kind: the media's host failed (502), or was too slow (504).
    init(proxying error: FetchError) {
        switch error.kind {
        case .http(416):
            self.init(.rangeNotSatisfiable, "the media's host has no such range: \(error.description)")
        case .timeout:
            self.init(.gatewayTimeout, "the media's host did not answer in time: \(error.description)")
        case .cancelled:
            self.init(.badRequest, "the client closed the connection")
        default:
            self.init(.badGateway, "cannot fetch the media: \(error.description)")
        }
    }
}
