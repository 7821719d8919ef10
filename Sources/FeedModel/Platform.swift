/// Where a channel's feed comes from.
public enum Platform: String, Sendable, Codable, CaseIterable {
    case youtube, rumble, podcast

    /// The platform of a parsed feed, decided here only: YouTube and Rumble by source;
    /// everything else (podcasts, Atom and RSS blogs) is a podcast/feed channel.
    public init(_ kind: Feed.Kind) {
        switch kind {
        case .youtube: self = .youtube
        case .rumble: self = .rumble
        case .podcast, .atom, .rss: self = .podcast
        }
    }

    /// Items of this platform play from a web page that yt-dlp resolves to audio (they carry no
    /// enclosure); podcast items play their enclosure.
    public var playsThroughPageResolver: Bool { self == .youtube || self == .rumble }
}

extension Platform {
    /// A feed URL's platform before anything is fetched (an OPML import that does not sync):
    /// YouTube's and Rumble's hosts, else a podcast/feed. Once fetched, `init(_ kind:)` decides.
    public init(guessingFrom url: String) {
        let host = Self.host(of: url)
        if host == "youtube.com" || host.hasSuffix(".youtube.com") { self = .youtube }
        else if host == "rumble.com" || host.hasSuffix(".rumble.com") { self = .rumble }
        else { self = .podcast }
    }

    /// The platform whose web page `url` is, when that page plays through the page resolver
    /// (yt-dlp): any http(s) URL on YouTube's hosts (`youtube.com` and its subdomains, `youtu.be`)
    /// or Rumble's (`rumble.com` and its subdomains). Their media is never served from those
    /// hosts (YouTube's from googlevideo.com, Rumble's from rumble.cloud), so a URL there is a
    /// page, whatever its path (`watch?v=`, `/shorts/`, `/live/`, `/v…-title.html`). Nil for
    /// everything else, which plays as the media URL it is.
    public static func pagePlatform(ofURL url: String) -> Platform? {
        let lower = url.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else { return nil }
        let host = host(of: url)
        if host == "youtu.be" { return .youtube }
        let platform = Platform(guessingFrom: url)
        return platform.playsThroughPageResolver ? platform : nil
    }

    /// The lowercased host of an absolute URL (`https://user@Www.YouTube.com:443/x` → `www.youtube.com`).
    private static func host(of url: String) -> String {
        guard let scheme = url.range(of: "://") else { return "" }
        let authority = url[scheme.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let hostAndPort = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? authority
        return hostAndPort.prefix { $0 != ":" }.lowercased()
    }
}
