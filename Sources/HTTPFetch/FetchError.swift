/// Why a fetch failed. `description` is the one line a person sees: the URL, then the cause
/// (`https://x/feed.xml: timed out after 10 s`).
public struct FetchError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// Not a URL libcurl can use (empty, spaces, control characters, no host).
        case invalidURL
        /// A scheme other than http/https, asked for or redirected to (`file:`, `ftp:`).
        case protocolNotAllowed
        case cannotResolveHost
        /// Refused, reset, or closed without a response.
        case connection
        case tls
        /// Connect timeout, total timeout, or a stalled body.
        case timeout
        /// Over `FetchRequest.maxBytes`, announced or while streaming.
        case tooLarge
        case tooManyRedirects
        /// The connection closed before the announced end of the body.
        case truncated
        /// The server answered with an HTTP error (≥ 400).
        case http(status: Int)
        /// A download could not open or write its file (or the server resumed at the wrong offset).
        case fileSystem
        /// The task was cancelled, or the fetcher shut down.
        case cancelled
    }

    /// The URL that was requested (not the redirect target).
    public var url: String
    public var kind: Kind
    /// From an HTTP error's `Retry-After`, as seconds from now (an HTTP-date is converted).
    public var retryAfter: Int?
    /// The cause, without the URL (`HTTP 503 Service Unavailable`).
    public var reason: String

    public init(url: String, kind: Kind, reason: String, retryAfter: Int? = nil) {
        self.url = url
        self.kind = kind
        self.reason = reason
        self.retryAfter = retryAfter
    }

    public var description: String { "\(url): \(reason)" }
}

extension FetchError {
    /// "10 s", "1.5 s": how the messages print durations.
    static func seconds(_ s: Double) -> String {
        s == s.rounded() && abs(s) < 1e15 ? "\(Int(s)) s" : "\(s) s"
    }

    /// "50 MB" for whole megabytes, "256 KB" for whole KiB below that, else bytes.
    static func size(_ bytes: Int) -> String {
        if bytes >= 1_000_000 && bytes % 1_000_000 == 0 { return "\(bytes / 1_000_000) MB" }
        if bytes >= 1024 && bytes < 1_000_000 && bytes % 1024 == 0 { return "\(bytes / 1024) KB" }
        return "\(bytes) bytes"
    }
}
