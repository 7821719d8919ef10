import FeedctlControl
import CCurl
import FeedIngest

// TODO: replace with FeedIngest.Fetcher
/// A minimal libcurl GET for `feedctl parse URL` until the shared fetcher lands: redirects,
/// gzip/deflate, connect and total timeouts, a size cap, http/https only.
enum HTTPDownload {
    struct Result {
        var body: [UInt8]
        var effectiveURL: String
        /// The `charset` parameter of the Content-Type, if any.
        var charset: String?
    }

    private final class Sink {
        var body: [UInt8] = []
        let limit: Int
        var overflow = false
        init(limit: Int) { self.limit = limit }
    }

    static func get(_ url: String, maxBytes: Int) throws(FeedError) -> Result {
        curl_global_init(Int(CURL_GLOBAL_DEFAULT))
        guard let h = curl_easy_init() else { throw .io("can't fetch \(url): curl_easy_init failed") }
        defer { curl_easy_cleanup(h) }
        let sink = Sink(limit: maxBytes)
        let write: feedctl_curl_data_cb = { data, size, count, user in
            guard let data, let user else { return 0 }
            let sink = Unmanaged<Sink>.fromOpaque(user).takeUnretainedValue()
            let n = size * count
            if sink.body.count + n > sink.limit { sink.overflow = true; return 0 }
            data.withMemoryRebound(to: UInt8.self, capacity: n) { sink.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: n)) }
            return n
        }
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let code: CURLcode = errorBuffer.withUnsafeMutableBufferPointer { eb in
            _ = feedctl_curl_setopt_str(h, CURLOPT_URL, url)
            _ = feedctl_curl_setopt_str(h, CURLOPT_PROTOCOLS_STR, "http,https")
            _ = feedctl_curl_setopt_str(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
            _ = feedctl_curl_setopt_long(h, CURLOPT_FOLLOWLOCATION, 1)
            _ = feedctl_curl_setopt_long(h, CURLOPT_MAXREDIRS, 10)
            _ = feedctl_curl_setopt_str(h, CURLOPT_ACCEPT_ENCODING, "")
            _ = feedctl_curl_setopt_long(h, CURLOPT_CONNECTTIMEOUT, 15)
            _ = feedctl_curl_setopt_long(h, CURLOPT_TIMEOUT, 120)
            _ = feedctl_curl_setopt_long(h, CURLOPT_NOSIGNAL, 1)
            _ = feedctl_curl_setopt_off(h, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(maxBytes))
            _ = feedctl_curl_setopt_str(h, CURLOPT_USERAGENT, "feedctl/0.1")
            _ = feedctl_curl_setopt_ptr(h, CURLOPT_ERRORBUFFER, eb.baseAddress)
            _ = feedctl_curl_setopt_datacb(h, CURLOPT_WRITEFUNCTION, write)
            return withExtendedLifetime(sink) {
                _ = feedctl_curl_setopt_ptr(h, CURLOPT_WRITEDATA, Unmanaged.passUnretained(sink).toOpaque())
                return curl_easy_perform(h)
            }
        }
        if sink.overflow || code == CURLE_FILESIZE_EXCEEDED { throw .tooLarge(limit: maxBytes) }
        guard code == CURLE_OK else {
            let detail = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw .io("can't fetch \(url): \(detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail)")
        }
        var status = 0
        _ = feedctl_curl_getinfo_long(h, CURLINFO_RESPONSE_CODE, &status)
        guard (200..<300).contains(status) else { throw .io("can't fetch \(url): HTTP \(status)") }
        var effective: UnsafeMutablePointer<CChar>?
        _ = feedctl_curl_getinfo_str(h, CURLINFO_EFFECTIVE_URL, &effective)
        var contentType: UnsafeMutablePointer<CChar>?
        _ = feedctl_curl_getinfo_str(h, CURLINFO_CONTENT_TYPE, &contentType)
        return Result(body: sink.body, effectiveURL: effective.map { String(cString: $0) } ?? url,
                      charset: contentType.flatMap { charset(fromContentType: String(cString: $0)) })
    }

    /// `text/xml; charset="ISO-8859-1"` → `ISO-8859-1`.
    static func charset(fromContentType value: String) -> String? {
        for parameter in value.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: " \t").lowercased() == "charset" else { continue }
            let v = pair[1].trimmingCharacters(in: " \t\"'")
            return v.isEmpty ? nil : v
        }
        return nil
    }
}

private extension Substring {
    func trimmingCharacters(in set: String) -> String {
        String(drop { set.contains($0) }.reversed().drop { set.contains($0) }.reversed())
    }
}
