import FeedText

/// The status line and header fields of one HTTP response, fed line by line as libcurl
/// delivers them. libcurl passes the heads of every response it reads (1xx, redirects, final),
/// so a new status line starts over: what is left at the end belongs to the final response.
struct ResponseHead {
    private(set) var reason = ""
    private(set) var fields: [(name: String, value: String)] = []

    /// One raw header line, CRLF included.
    mutating func consume(_ line: String) {
        let text = line.trimmingWhitespace()
        if text.hasPrefix("HTTP/") {
            // "HTTP/1.1 503 Service Unavailable"; HTTP/2 has no reason phrase.
            let parts = text.split(separator: " ", maxSplits: 2)
            reason = parts.count == 3 ? String(parts[2]) : ""
            fields.removeAll(keepingCapacity: true)
        } else if let colon = text.firstIndex(of: ":") {
            let name = text[..<colon].lowercased()
            let value = String(text[text.index(after: colon)...]).trimmingWhitespace()
            fields.append((name, value))
        }
    }

    /// The last value of a header (names are case-insensitive).
    func value(_ name: String) -> String? {
        let key = name.lowercased()
        return fields.last { $0.name == key }?.value
    }

    /// All fields; repeated names joined with ", " as RFC 9110 allows.
    var dictionary: [String: String] {
        var result: [String: String] = [:]
        for (name, value) in fields {
            result[name] = result[name].map { "\($0), \(value)" } ?? value
        }
        return result
    }
}

/// Parsers for the header values a fetch reports.
enum HeaderValue {
    /// `text/xml; charset="UTF-8"` → (`text/xml`, `utf-8`).
    static func contentType(_ value: String) -> (mediaType: String?, charset: String?) {
        let parts = value.split(separator: ";").map { String($0).trimmingWhitespace() }
        let mediaType = parts.first.flatMap { $0.isEmpty ? nil : $0.lowercased() }
        var charset: String?
        for param in parts.dropFirst() {
            guard let eq = param.firstIndex(of: "="),
                  String(param[..<eq]).trimmingWhitespace().lowercased() == "charset" else { continue }
            var v = String(param[param.index(after: eq)...]).trimmingWhitespace()
            if v.count >= 2, v.hasPrefix("\""), v.hasSuffix("\"") { v = String(v.dropFirst().dropLast()) }
            if !v.isEmpty { charset = v.lowercased() }
        }
        return (mediaType, charset)
    }

    /// `Retry-After` as seconds from `now` (Unix seconds): either delta-seconds or an HTTP-date
    /// (a date in the past is 0). Garbage is nil.
    static func retryAfter(_ value: String, now: Int64) -> Int? {
        let v = value.trimmingWhitespace()
        if !v.isEmpty, v.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) {
            return Int(v.prefix(9))  // delta-seconds; longer than 9 digits is beyond any sane wait
        }
        guard let date = DateParser.parse(v) else { return nil }
        return Int(max(0, min(date - now, Int64(Int32.max))))
    }

    /// The standard reason phrase, for HTTP/2 responses which carry none.
    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 406: return "Not Acceptable"
        case 408: return "Request Timeout"
        case 410: return "Gone"
        case 416: return "Range Not Satisfiable"
        case 429: return "Too Many Requests"
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        default: return ""
        }
    }
}
