import FeedModel
import FeedText
import HTTPFetch
import LibraryStore

/// Where each provider is and how it is bounded, read once at the edge from the environment
/// (the CLI's and `feedctl serve`'s): for each provider NAME (`ITUNES`, `PODCASTINDEX`,
/// `RUMBLE`, `YOUTUBE`, `LIBRARY`, `TOPLIST`) `FEEDCTL_DISCOVER_NAME_URL` (its base URL),
/// `FEEDCTL_DISCOVER_NAME_TIMEOUT` (seconds) and `FEEDCTL_DISCOVER_NAME_MAX_KB` (its answer's
/// cap); `FEEDCTL_DISCOVER_YTDLP` (yt-dlp's path); Podcast Index is asked only with
/// `FEEDCTL_PODCASTINDEX_KEY` and `FEEDCTL_PODCASTINDEX_SECRET`.
public struct DiscoverySettings: Sendable {
    public struct Endpoint: Sendable, Equatable {
        public var baseURL: String
        public var limits: ProviderLimits
    }

    public var itunes = Endpoint(baseURL: "https://itunes.apple.com", limits: ProviderLimits())
    public var podcastIndex = Endpoint(baseURL: "https://api.podcastindex.org", limits: ProviderLimits())
    public var podcastIndexAuth: PodcastIndexAuth?
    public var rumble = Endpoint(baseURL: "https://rumble.com", limits: ProviderLimits())
    public var youtube = Endpoint(baseURL: "https://www.youtube.com", limits: ProviderLimits())
    public var ytdlp = "yt-dlp"
    public var library = Endpoint(baseURL: "", limits: ProviderLimits())
    /// Apple's podcast charts (`discover top`).
    public var toplist = Endpoint(baseURL: "https://itunes.apple.com", limits: ProviderLimits())

    public init() {}

    /// The settings the environment gives; one line naming the variable when a value is wrong.
    public init(environment: [String: String]) throws(DiscoveryError) {
        func endpoint(_ name: String, _ current: Endpoint) throws(DiscoveryError) -> Endpoint {
            var endpoint = current
            let prefix = "FEEDCTL_DISCOVER_\(name)_"
            if let url = environment[prefix + "URL"] {
                guard URLs.isHTTP(url) else { throw DiscoveryError("\(prefix)URL must be an http(s) URL, not \"\(url)\"") }
                endpoint.baseURL = url
            }
            if let text = environment[prefix + "TIMEOUT"] {
                guard let seconds = Double(text), seconds > 0, seconds <= 600 else {
                    throw DiscoveryError("\(prefix)TIMEOUT must be seconds from 0 to 600, not \"\(text)\"")
                }
                endpoint.limits.timeout = seconds
            }
            if let text = environment[prefix + "MAX_KB"] {
                guard let kb = Int(text), kb > 0, kb <= FeedLimits.maxBytes / 1024 else {
                    throw DiscoveryError("\(prefix)MAX_KB must be a size in KB from 1 to \(FeedLimits.maxBytes / 1024), not \"\(text)\"")
                }
                endpoint.limits.maxBytes = kb * 1024
            }
            return endpoint
        }
        itunes = try endpoint("ITUNES", itunes)
        podcastIndex = try endpoint("PODCASTINDEX", podcastIndex)
        rumble = try endpoint("RUMBLE", rumble)
        youtube = try endpoint("YOUTUBE", youtube)
        library = try endpoint("LIBRARY", library)
        toplist = try endpoint("TOPLIST", toplist)
        if let path = environment["FEEDCTL_DISCOVER_YTDLP"], !path.isEmpty { ytdlp = path }
        switch (environment["FEEDCTL_PODCASTINDEX_KEY"], environment["FEEDCTL_PODCASTINDEX_SECRET"]) {
        case (let key?, let secret?) where !key.isEmpty && !secret.isEmpty: podcastIndexAuth = PodcastIndexAuth(key: key, secret: secret)
        case (nil, nil): break
        default: throw DiscoveryError("Podcast Index needs both FEEDCTL_PODCASTINDEX_KEY and FEEDCTL_PODCASTINDEX_SECRET")
        }
    }

    /// The names `--platform` and the API's `platforms` take: a platform (`podcast` is iTunes and
    /// Podcast Index), or a provider by name.
    public static let platformNames = ["podcast", "youtube", "rumble", "library", "itunes", "podcastindex"]

    /// The providers for these names (all of them when empty), in a fixed order: library,
    /// podcasts, YouTube, Rumble. Podcast Index only with its key. Nil with the name not known.
    public func providers(_ names: [String], fetcher: Fetcher, store: any SearchStore & ChannelStore)
        throws(DiscoveryError) -> [any DiscoveryProvider] {
        var wanted = Set<String>()
        for name in names.map({ $0.lowercased() }) {
            switch name {
            case "podcast", "podcasts": wanted.formUnion(["itunes", "podcastindex"])
            case "youtube", "rumble", "library", "itunes", "podcastindex": wanted.insert(name)
            default:
                throw DiscoveryError("\"\(name)\" is not a discovery platform (\(Self.platformNames.joined(separator: ", ")))")
            }
        }
        if names.contains(where: { $0.lowercased() == "podcastindex" }) && podcastIndexAuth == nil {
            throw DiscoveryError("Podcast Index needs a key: set FEEDCTL_PODCASTINDEX_KEY and FEEDCTL_PODCASTINDEX_SECRET")
        }
        let all = wanted.isEmpty
        var providers: [any DiscoveryProvider] = []
        if all || wanted.contains("library") { providers.append(LibraryProvider(store: store, limits: library.limits)) }
        if all || wanted.contains("itunes") {
            providers.append(ITunesProvider(baseURL: itunes.baseURL, limits: itunes.limits, fetcher: fetcher))
        }
        if all || wanted.contains("podcastindex"), let auth = podcastIndexAuth {
            providers.append(PodcastIndexProvider(auth: auth, baseURL: podcastIndex.baseURL, limits: podcastIndex.limits, fetcher: fetcher))
        }
        if all || wanted.contains("youtube") {
            providers.append(YouTubeProvider(executable: ytdlp, origin: youtube.baseURL, limits: youtube.limits))
        }
        if all || wanted.contains("rumble") { providers.append(RumbleProvider(baseURL: rumble.baseURL, limits: rumble.limits, fetcher: fetcher)) }
        return providers
    }
}
