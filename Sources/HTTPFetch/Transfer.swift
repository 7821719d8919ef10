import CCurl
import FeedModel
import FeedText
#if canImport(Glibc)
import Glibc
#endif

/// One request in flight: its libcurl easy handle, the bytes received, the redirects followed.
/// Lives on the fetch loop's thread only; libcurl calls back into it from `curl_multi_perform`
/// on that same thread.
///
/// Redirects are followed here, not by libcurl (`CURLOPT_FOLLOWLOCATION` off): each hop is a
/// fresh run of the same handle, so the status of every hop is known (a chain is permanent only
/// if all are 301/308), the headers and body are those of the last hop, a loop is named, and the
/// total timeout spans the whole chain.
final class Transfer {
    /// What the loop does with a transfer whose current hop ended.
    enum Step {
        case finished(Result<FetchResponse, FetchError>)
        case redirect(to: String)
    }

    let job: FetchJob
    let easy: UnsafeMutableRawPointer
    private var request: FetchRequest { job.request }
    /// libcurl's message for the last failure (CURLOPT_ERRORBUFFER).
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private var requestHeaders: UnsafeMutablePointer<curl_slist>?
    private let clock = ContinuousClock()
    private var started: ContinuousClock.Instant

    private(set) var currentURL: String
    private var hopStatuses: [Int] = []
    private var visited: Set<String> = []
    private var head = ResponseHead()
    private var body: [UInt8] = []
    private var overCap = false
    /// Bytes of response heads received on this hop (capped at `FetchLimits.maxHeaderBytes`).
    private var headBytes = 0
    private var headOverCap = false
    /// The final head ended (a blank line after a non-1xx status): body bytes may follow.
    private var headDone = false
    /// Set for downloads: the body goes to this file instead of `body`.
    private let file: DownloadFile?
    private var hopHasBody = false
    /// A `headOnly` request reached its final response's body and stopped there.
    private var stoppedAtBody = false
    private let addresses: AddressPolicy
    /// The local address a `.publicOnly` transfer refused to connect to (the failure names it).
    private var refusedAddress: String?

    // The fetch loop's bookkeeping of slots (see `FetchLoop`).
    /// The host whose bounds the transfer counts against (its current hop's).
    var host = HostKey("")
    /// When the loop started it.
    var admitted = ContinuousClock.now
    /// False once the transfer turned slow.
    var countsAgainstBounds = true
    /// A stream: outside the loop's slots altogether (`Fetcher.stream`).
    var unbounded = false
    /// The final response's body is going to the stream's reader.
    private var streaming = false
    /// Bytes of a streamed request's other bodies (redirects, errors), which nobody reads.
    private var discarded = 0

    /// Nil when a download's file cannot be opened, libcurl cannot allocate a handle or
    /// refuses a setting; `failure` says why.
    init?(job: FetchJob, userAgent: String, addresses: AddressPolicy, failure: inout FetchError?) {
        var problem: String?
        if let target = job.download {
            guard let file = DownloadFile(target, problem: &problem) else {
                failure = FetchError(url: job.request.url, kind: .fileSystem, reason: problem ?? "cannot open \(target.path)")
                return nil
            }
            self.file = file
        } else {
            self.file = nil
        }
        guard let easy = feedctl_curl_easy_init() else {
            failure = FetchError(url: job.request.url, kind: .connection, reason: "libcurl could not create a handle")
            return nil
        }
        self.job = job
        self.easy = easy
        self.addresses = addresses
        self.currentURL = job.request.url
        self.started = ContinuousClock.now
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(to: 0)
        if let problem = configure(userAgent: userAgent) {
            failure = FetchError(url: job.request.url, kind: .connection, reason: "libcurl rejected \(problem)")
            return nil  // deinit frees the handle and the buffer
        }
    }

    deinit {
        feedctl_curl_easy_cleanup(easy)
        feedctl_curl_slist_free_all(requestHeaders)
        errorBuffer.deallocate()
    }

    /// Options that hold for every hop. Returns the name of the first option libcurl refused.
    private func configure(userAgent: String) -> String? {
        let me = Unmanaged.passUnretained(self).toOpaque()
        // Validators come back from storage: one with a line break would inject headers.
        func safe(_ value: String?) -> String? { value.flatMap { $0.utf8.contains { $0 < 0x20 } ? nil : $0 } }
        if let etag = safe(request.etag) { requestHeaders = feedctl_curl_slist_append(requestHeaders, "If-None-Match: \(etag)") }
        if let date = safe(request.lastModified) { requestHeaders = feedctl_curl_slist_append(requestHeaders, "If-Modified-Since: \(date)") }
        // The caller's own fields (an API's auth headers), in name order; a name or value with a
        // control character is dropped rather than sent as two header lines.
        for (name, value) in request.headers.sorted(by: { $0.key < $1.key }) {
            guard let name = safe(name), !name.isEmpty, !name.contains(":"), let value = safe(value) else { continue }
            requestHeaders = feedctl_curl_slist_append(requestHeaders, "\(name): \(value)")
        }
        let rangeStart = file.map { $0.existing > 0 ? $0.existing : nil } ?? request.rangeStart
        let settings: [(String, CURLcode)] = [
            ("NOSIGNAL", feedctl_curl_setopt_long(easy, CURLOPT_NOSIGNAL, 1)),  // no SIGALRM in threads
            ("PROTOCOLS_STR", feedctl_curl_setopt_str(easy, CURLOPT_PROTOCOLS_STR, "http,https")),
            ("REDIR_PROTOCOLS_STR", feedctl_curl_setopt_str(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")),
            ("FOLLOWLOCATION", feedctl_curl_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0)),
            // Never wait for another transfer's connection in the hope that it multiplexes:
            // with PIPEWAIT=1 every transfer to a host waited behind one whose body came slowly,
            // and all of them timed out (issue 14). HTTP/2 connections are still reused once
            // known; the fetch loop bounds the connections per host instead.
            ("PIPEWAIT", feedctl_curl_setopt_long(easy, CURLOPT_PIPEWAIT, 0)),
            ("USERAGENT", feedctl_curl_setopt_str(easy, CURLOPT_USERAGENT, userAgent)),
            // All libcurl decodes; none for a stream, whose bytes and ranges are passed on as they are.
            ("ACCEPT_ENCODING", job.stream != nil ? CURLE_OK : feedctl_curl_setopt_str(easy, CURLOPT_ACCEPT_ENCODING, "")),
            ("HTTPHEADER", feedctl_curl_setopt_slist(easy, CURLOPT_HTTPHEADER, requestHeaders)),
            ("RANGE", rangeStart.map { feedctl_curl_setopt_str(easy, CURLOPT_RANGE, "\(max(0, $0))-") } ?? CURLE_OK),
            // A head-only request reads no final body, whatever its announced size (`receive`).
            ("MAXFILESIZE_LARGE", request.headOnly ? CURLE_OK
                : feedctl_curl_setopt_off(easy, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(max(0, request.maxBytes)))),
            ("CONNECTTIMEOUT_MS", feedctl_curl_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(request.connectTimeout))),
            ("LOW_SPEED_LIMIT", feedctl_curl_setopt_long(easy, CURLOPT_LOW_SPEED_LIMIT, 1)),
            ("LOW_SPEED_TIME", feedctl_curl_setopt_long(easy, CURLOPT_LOW_SPEED_TIME, max(1, Int(request.stallTimeout.rounded(.up))))),
            ("ERRORBUFFER", feedctl_curl_setopt_ptr(easy, CURLOPT_ERRORBUFFER, errorBuffer)),
            ("WRITEFUNCTION", feedctl_curl_setopt_datacb(easy, CURLOPT_WRITEFUNCTION, transferWrite)),
            ("WRITEDATA", feedctl_curl_setopt_ptr(easy, CURLOPT_WRITEDATA, me)),
            ("HEADERFUNCTION", feedctl_curl_setopt_datacb(easy, CURLOPT_HEADERFUNCTION, transferHeader)),
            ("HEADERDATA", feedctl_curl_setopt_ptr(easy, CURLOPT_HEADERDATA, me)),
            ("OPENSOCKETFUNCTION", addresses.refuses == nil ? CURLE_OK : feedctl_curl_setopt_opensocket(easy, transferOpenSocket)),
            ("OPENSOCKETDATA", addresses.refuses == nil ? CURLE_OK : feedctl_curl_setopt_ptr(easy, CURLOPT_OPENSOCKETDATA, me)),
        ]
        if let failed = settings.first(where: { $0.1 != CURLE_OK }) { return "CURLOPT_\(failed.0)" }
        // A POST: libcurl copies the bytes (COPYPOSTFIELDS), so nothing here must outlive the call.
        if let body = request.body {
            guard feedctl_curl_setopt_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)) == CURLE_OK else {
                return "CURLOPT_POSTFIELDSIZE_LARGE"
            }
            let copied = body.withUnsafeBytes { bytes in
                feedctl_curl_setopt_ptr(easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress ?? UnsafeRawPointer(("" as StaticString).utf8Start)))
            }
            guard copied == CURLE_OK else { return "CURLOPT_COPYPOSTFIELDS" }
        }
        return nil
    }

    /// Points the handle at `url` for the next hop, with what is left of the total timeout.
    /// Returns the error that ends the transfer instead, if any.
    func prepareHop(_ url: String, first: Bool) -> FetchError? {
        if first { started = clock.now }
        currentURL = url
        visited.insert(url)
        refusedAddress = nil
        head = ResponseHead()
        headBytes = 0
        headOverCap = false
        headDone = false
        body.removeAll()
        hopHasBody = false
        stoppedAtBody = false
        discarded = 0
        errorBuffer[0] = 0
        if let problem = Self.checkURL(url) { return error(problem.kind, problem.reason) }
        let left = request.totalTimeout - elapsed
        guard left > 0 else { return error(.timeout, "timed out after \(FetchError.seconds(request.totalTimeout))") }
        guard feedctl_curl_setopt_str(easy, CURLOPT_URL, url) == CURLE_OK,
              feedctl_curl_setopt_long(easy, CURLOPT_TIMEOUT_MS, Self.milliseconds(left)) == CURLE_OK
        else { return error(.invalidURL, "libcurl rejected the URL") }
        return nil
    }

    /// Called when libcurl reports the hop done with `code`.
    func finish(_ code: CURLcode) -> Step {
        guard code == CURLE_OK || (code == CURLE_WRITE_ERROR && stoppedAtBody) else { return .finished(.failure(failure(for: code))) }
        let status = Int(info(CURLINFO_RESPONSE_CODE))
        if Self.redirectStatuses.contains(status), let next = redirectURL() {
            if request.body != nil {
                return .finished(.failure(error(.tooManyRedirects, "a POST is not redirected (HTTP \(status) to \(next))")))
            }
            guard hopStatuses.count < request.maxRedirects else {
                let loop = visited.contains(next) ? ", looping at \(next)" : ""
                return .finished(.failure(error(.tooManyRedirects, "too many redirects (\(request.maxRedirects))\(loop)")))
            }
            hopStatuses.append(status)
            return .redirect(to: next)
        }
        // The precise clock, as the rest of the product reads it: glibc's time() reads a coarse
        // one that can lag a whole second at a boundary, which made an HTTP-date 1 s longer.
        let retryAfter = head.value("retry-after").flatMap { HeaderValue.retryAfter($0, now: Clock.now()) }
        if let file, status == 416, let range = head.value("content-range"), range.hasSuffix("/\(file.existing)") {
            return .finished(.success(response(status: status)))  // the file was already complete
        }
        if status >= 400 {
            let phrase = head.reason.isEmpty ? HeaderValue.reasonPhrase(status) : head.reason
            var reason = phrase.isEmpty ? "HTTP \(status)" : "HTTP \(status) \(phrase)"
            if let retryAfter { reason += " (retry after \(retryAfter) s)" }
            return .finished(.failure(error(.http(status: status), reason, retryAfter: retryAfter)))
        }
        if let file, !hopHasBody, !file.begin(status: status, contentRange: head.value("content-range"), contentLength: 0) {
            return .finished(.failure(error(.fileSystem, file.problem ?? "cannot write \(file.target.path)")))
        }
        return .finished(.success(response(status: status)))
    }

    private func response(status: Int) -> FetchResponse {
        let type = HeaderValue.contentType(head.value("content-type") ?? "")
        return FetchResponse(
            status: status, finalURL: currentURL,
            permanentRedirect: !hopStatuses.isEmpty && hopStatuses.allSatisfy { $0 == 301 || $0 == 308 },
            redirects: hopStatuses.count,
            etag: head.value("etag"), lastModified: head.value("last-modified"),
            contentType: type.mediaType, charset: type.charset, headers: head.dictionary,
            body: body, seconds: elapsed)
    }

    func cancelled() -> FetchError { error(.cancelled, "cancelled") }

    /// The socket for one address libcurl is about to connect to, or `CURL_SOCKET_BAD` to refuse
    /// it (libcurl then tries the name's other addresses, and fails with "could not connect").
    fileprivate func openSocket(_ address: UnsafeMutablePointer<curl_sockaddr>) -> curl_socket_t {
        let family = address.pointee.family, type = address.pointee.socktype, proto = address.pointee.protocol
        let length = socklen_t(address.pointee.addrlen)
        // `addr` is a `sockaddr` as long as `addrlen` (libcurl's storage behind it is large enough).
        let target = withUnsafeMutablePointer(to: &address.pointee.addr) { NetworkAddress.text($0, length: length) }
        if let refuses = addresses.refuses {
            guard let target, !refuses(target.address, target.port) else {
                refusedAddress = target?.address ?? "an address with no numeric form"
                return CURL_SOCKET_BAD
            }
        }
        // What libcurl's own opener does, close-on-exec as every socket feedctl opens.
        return socket(family, type | Int32(SOCK_CLOEXEC.rawValue), proto)
    }

    // MARK: callbacks (on the loop thread, inside curl_multi_perform)

    /// Body bytes. Returning less than `count` makes libcurl abort with CURLE_WRITE_ERROR.
    fileprivate func receive(_ data: UnsafeRawBufferPointer) -> Int {
        if let sink = job.stream {
            if streaming { return sink.offer(data) ? data.count : feedctl_curl_writefunc_pause() }
            // A redirect's or an error's body: read (so the connection can be reused), not kept.
            discarded += data.count
            return discarded <= Self.maxDiscardedBytes ? data.count : 0
        }
        if request.headOnly, !Self.redirectStatuses.contains(info(CURLINFO_RESPONSE_CODE)) {
            stoppedAtBody = true
            return 0
        }
        if let file {
            if !hopHasBody {
                hopHasBody = true
                let length = head.value("content-length").flatMap { Int64($0) }
                guard file.begin(status: info(CURLINFO_RESPONSE_CODE), contentRange: head.value("content-range"), contentLength: length)
                else { return 0 }
            }
            if file.writing {
                guard file.size + Int64(data.count) <= Int64(request.maxBytes) else {
                    overCap = true
                    return 0
                }
                return file.write(data) ? data.count : 0
            }
        }
        // libcurl checks Content-Length against CURLOPT_MAXFILESIZE; this catches chunked and
        // compressed bodies, counted decoded so a gzip bomb stops at the cap too.
        guard body.count + data.count <= request.maxBytes else {
            overCap = true
            return 0
        }
        body.append(contentsOf: data)
        return data.count
    }

    /// One head line. Returning false aborts the transfer (CURLE_WRITE_ERROR): the head is
    /// over `FetchLimits.maxHeaderBytes` (libcurl alone allows 100 KB per line, and Debian's
    /// 7.88 300 KB in all, which it reported as "Out of memory" or a bare count).
    fileprivate func receiveHeader(_ line: UnsafeRawBufferPointer) -> Bool {
        headBytes += line.count
        guard headBytes <= FetchLimits.maxHeaderBytes else {
            headOverCap = true
            return false
        }
        if line.count <= 2 { headDone = true }
        head.consume(String(decoding: line, as: UTF8.self))
        // The end of a 2xx head (not a 1xx's, not a redirect's): a stream's body follows.
        if let sink = job.stream, line.count <= 2, !streaming, (200..<300).contains(info(CURLINFO_RESPONSE_CODE)) {
            streaming = true
            sink.begin(StreamHead(status: info(CURLINFO_RESPONSE_CODE), finalURL: currentURL, headers: head.dictionary))
        }
        // At the end of a head, make room for an announced body at once (not by doubling).
        if file == nil, line.count <= 2, let length = head.value("content-length").flatMap(Int.init),
           length > body.capacity, length <= request.maxBytes {
            body.reserveCapacity(length)
        }
        return true
    }

    // MARK: errors

    private var elapsed: Double {
        let d = clock.now - started
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    private func error(_ kind: FetchError.Kind, _ reason: String, retryAfter: Int? = nil) -> FetchError {
        var reason = reason
        if currentURL != request.url, kind != .tooManyRedirects {
            reason += " (redirected to \(currentURL))"
        }
        return FetchError(url: request.url, kind: kind, reason: reason, retryAfter: retryAfter)
    }

    private func failure(for code: CURLcode) -> FetchError {
        let curlSays = String(cString: errorBuffer)
        let detail = curlSays.isEmpty ? String(cString: feedctl_curl_easy_strerror(code)) : curlSays
        switch code {
        case CURLE_UNSUPPORTED_PROTOCOL where curlSays.contains("HTTP/0.9"):
            // libcurl's name for a reply without a status line (HTTP/0.9, which it refuses, or
            // anything that is not HTTP): nothing to do with the URL's scheme.
            return error(.connection, "the server's reply is not HTTP (no status line)")
        case CURLE_UNSUPPORTED_PROTOCOL:
            return error(.protocolNotAllowed, "protocol not allowed (only http and https)")
        case CURLE_WRITE_ERROR where headOverCap:
            return error(.tooLarge, "response header larger than \(FetchError.size(FetchLimits.maxHeaderBytes))")
        case CURLE_OUT_OF_MEMORY where !headDone:
            // libcurl's own bounds on a head: 100 KB per line (CURL_MAX_HTTP_HEADER), reported
            // as "Out of memory".
            return error(.tooLarge, "response header line longer than 100 KB")
        case CURLE_URL_MALFORMAT:
            return error(.invalidURL, "invalid URL")
        case CURLE_COULDNT_RESOLVE_HOST:
            return error(.cannotResolveHost, "cannot resolve host")
        case CURLE_COULDNT_CONNECT where refusedAddress != nil:
            return error(.connection, "refused: \(refusedAddress ?? "") is a local address (loopback, private or link-local), and only public addresses may be fetched here")
        case CURLE_COULDNT_CONNECT:
            let errno = Int32(truncatingIfNeeded: info(CURLINFO_OS_ERRNO))
            if errno == ECONNREFUSED { return error(.connection, "connection refused") }
            return error(.connection, errno != 0 ? "cannot connect: \(String(cString: strerror(errno)).lowercased())" : "cannot connect: \(detail)")
        case CURLE_OPERATION_TIMEDOUT:
            // libcurl reports all three timeouts with one code; its message names which
            // (lib/connect.c "Connection timed out", lib/progress.c "Operation too slow"). The
            // connect timeout covers the TLS handshake, whose expiry it calls "SSL connection
            // timeout" (connected, not yet through the handshake; the connect times read 0 then).
            if curlSays.hasPrefix("SSL connection timeout") && request.connectTimeout <= request.totalTimeout {
                return error(.timeout, "TLS handshake timed out after \(FetchError.seconds(request.connectTimeout)) (the connect timeout)")
            }
            if curlSays.hasPrefix("Connection timed out") || curlSays.hasPrefix("Failed to connect") {
                return error(.timeout, "connect timed out after \(FetchError.seconds(request.connectTimeout))")
            }
            if curlSays.hasPrefix("Operation too slow") {
                return error(.timeout, "stalled: no data for \(FetchError.seconds(request.stallTimeout.rounded(.up)))")
            }
            return error(.timeout, "timed out after \(FetchError.seconds(request.totalTimeout))")
        case CURLE_FILESIZE_EXCEEDED:
            return error(.tooLarge, "response larger than \(FetchError.size(request.maxBytes))")
        case CURLE_WRITE_ERROR where overCap:
            return error(.tooLarge, "response larger than \(FetchError.size(request.maxBytes))")
        case CURLE_WRITE_ERROR where file?.problem != nil:
            return error(.fileSystem, file?.problem ?? "cannot write")
        case CURLE_PARTIAL_FILE:
            let expected = offInfo(CURLINFO_CONTENT_LENGTH_DOWNLOAD_T)
            let of = expected > 0 ? " of \(expected)" : ""
            // A download's body went to its file, not `body`: ask libcurl what this hop received.
            let got = file == nil ? Int64(body.count) : offInfo(CURLINFO_SIZE_DOWNLOAD_T)
            return error(.truncated, "connection closed after \(got)\(of) bytes")
        case CURLE_GOT_NOTHING:
            return error(.connection, "server closed the connection without a response")
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM,
             CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR:
            return error(.tls, "TLS failed: \(detail)")
        case CURLE_RECV_ERROR, CURLE_SEND_ERROR:
            return error(.connection, "connection failed: \(detail)")
        default:
            return error(.connection, detail)
        }
    }

    // MARK: libcurl accessors

    private func info(_ what: CURLINFO) -> Int {
        var value = 0
        return feedctl_curl_getinfo_long(easy, what, &value) == CURLE_OK ? value : 0
    }

    private func offInfo(_ what: CURLINFO) -> Int64 {
        var value: curl_off_t = 0
        return feedctl_curl_getinfo_off(easy, what, &value) == CURLE_OK ? Int64(value) : 0
    }

    private func redirectURL() -> String? {
        var raw: UnsafeMutablePointer<CChar>?
        guard feedctl_curl_getinfo_str(easy, CURLINFO_REDIRECT_URL, &raw) == CURLE_OK, let raw else { return nil }
        return String(cString: raw)
    }

    /// The most of a streamed request's redirect or error bodies read before it gives up.
    static let maxDiscardedBytes = 64 * 1024

    /// The statuses whose `Location` is followed.
    static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

    private static func milliseconds(_ seconds: Double) -> Int {
        guard seconds.isFinite else { return 0 }  // 0 = no timeout, libcurl's convention
        return Int(min(max(seconds * 1000, 1), 1e12))
    }

    /// Only http(s) URLs without whitespace or control characters go to libcurl.
    static func checkURL(_ url: String) -> (kind: FetchError.Kind, reason: String)? {
        guard !url.isEmpty, !url.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
            return (.invalidURL, "invalid URL")
        }
        if URLs.isHTTP(url) { return nil }
        let lower = url.lowercased()
        if let colon = lower.firstIndex(of: ":"), lower[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }) {
            return (.protocolNotAllowed, "protocol \(lower[..<colon]) not allowed (only http and https)")
        }
        return (.invalidURL, "invalid URL (expected http:// or https://)")
    }
}

// libcurl's C callbacks: plain functions (no captures, no actor isolation), the Transfer passed
// as user data.
private let transferWrite: feedctl_curl_data_cb = { data, size, count, user in
    guard let user else { return 0 }
    let n = size * count
    guard n > 0, let data else { return n }
    let transfer = Unmanaged<Transfer>.fromOpaque(user).takeUnretainedValue()
    return transfer.receive(UnsafeRawBufferPointer(start: data, count: n))
}

private let transferOpenSocket: feedctl_curl_opensocket_cb = { user, _, address in
    guard let user, let address else { return CURL_SOCKET_BAD }
    return Unmanaged<Transfer>.fromOpaque(user).takeUnretainedValue().openSocket(address)
}

private let transferHeader: feedctl_curl_data_cb = { data, size, count, user in
    guard let user else { return 0 }
    let n = size * count
    guard n > 0, let data else { return n }
    let fine = Unmanaged<Transfer>.fromOpaque(user).takeUnretainedValue().receiveHeader(UnsafeRawBufferPointer(start: data, count: n))
    return fine ? n : 0
}
