/// Where audio comes from. Remote media is untrusted: only http(s) goes through, with FFmpeg's
/// protocol whitelist enforcing it down the line (redirects, playlists).
public enum MediaSource: Sendable, Equatable, CustomStringConvertible {
    case remote(String)
    case localFile(String)

    /// Protocols FFmpeg may use for remote media; no file, concat, subfile, data or pipe.
    static let remoteProtocols = "http,https,tls,tcp"

    /// Classifies what a user or a feed gave: http(s) URLs are remote; any other URL scheme is
    /// refused; a plain path (or `file://` URL) is a local file only if `allowLocalFiles`
    /// (true only when the user named it, never for feed enclosures).
    public static func parse(_ text: String, allowLocalFiles: Bool) throws(PlayerError) -> MediaSource {
        let trimmed = text.trimmingWhitespace
        guard !trimmed.isEmpty else { throw .refused(source: text, reason: "empty location") }
        let lower = trimmed.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") { return .remote(trimmed) }
        if lower.hasPrefix("file://") {
            guard allowLocalFiles else {
                throw .refused(source: text, reason: "local files are only played when named by the user")
            }
            return .localFile(String(trimmed.dropFirst("file://".count)))
        }
        if let colon = trimmed.firstIndex(of: ":"), !trimmed[..<colon].contains("/"),
           trimmed[..<colon].count > 1 {
            // "concat:", "data:", "ftp://", "subfile,,..."-style locations: not a path, not http(s).
            throw .refused(source: text, reason: "only http and https URLs are allowed")
        }
        guard allowLocalFiles else {
            throw .refused(source: text, reason: "local files are only played when named by the user")
        }
        return .localFile(trimmed)
    }

    public var description: String {
        switch self {
        case .remote(let url): url
        case .localFile(let path): path
        }
    }
}

extension String {
    var trimmingWhitespace: String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s = s.dropFirst() }
        while let l = s.last, l.isWhitespace { s = s.dropLast() }
        return String(s)
    }
}
