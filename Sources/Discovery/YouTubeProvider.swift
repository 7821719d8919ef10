import FeedModel
import Foundation
import HTTPFetch

/// YouTube through yt-dlp (not a Debian package: `pip install yt-dlp`), when it is installed:
/// videos by `ytsearchN:QUERY`, channels by the search page with YouTube's channel filter
/// (`sp=EgIQAg==`), both with flat extraction (`-J --flat-playlist`: one JSON document, no
/// request per video). Without yt-dlp, the search fails with the line saying how to get it.
public struct YouTubeProvider: DiscoveryProvider {
    public let name = "youtube"
    public let platform: Platform? = .youtube
    public let limits: ProviderLimits
    /// `yt-dlp` (looked up on PATH) or a path.
    public let executable: String
    /// Where the channel search page is (`https://www.youtube.com`).
    public let origin: String

    public init(executable: String = "yt-dlp", origin: String = "https://www.youtube.com", limits: ProviderLimits = ProviderLimits()) {
        self.executable = executable; self.origin = origin; self.limits = limits
    }

    public func search(_ request: DiscoveryRequest) async throws(DiscoveryError) -> [DiscoveryResult] {
        let target: String
        switch request.kind {
        case .videos: target = "ytsearch\(request.limit):\(request.query)"
        case .channels: target = URLQuery.build(origin, "/results", [("search_query", request.query), ("sp", "EgIQAg==")])
        }
        let arguments = ["-J", "--flat-playlist", "--no-warnings", "--ignore-config", "--playlist-end", String(request.limit), "--", target]
        // Bounded by the size cap here, and by the provider's timeout (the search cancels it).
        let output: [UInt8]
        do {
            output = try await YTDLP(executable: executable, maxOutputBytes: limits.maxBytes).run(arguments, for: "searching YouTube")
        } catch {
            throw DiscoveryError(error.description)
        }
        let playlist: YTDLPPlaylist
        do {
            playlist = try JSONDecoder().decode(YTDLPPlaylist.self, from: Data(output))
        } catch {
            throw DiscoveryError("yt-dlp's output is not the JSON expected (\(ProviderFetch.reason(error)))")
        }
        return playlist.entries.compactMap { $0?.result(kind: request.kind, provider: name) }.prefix(request.limit).map { $0 }
    }
}

/// yt-dlp's `-J --flat-playlist` document: `{"_type": "playlist", "entries": [...]}`, each entry
/// a `url` result with what the search page showed.
struct YTDLPPlaylist: Decodable {
    var entries: [Entry?]

    struct Entry: Decodable {
        var id: String?
        var url: String?
        var ieKey: String?
        var title: String?
        var description: String?
        var duration: Double?
        var viewCount: Int64?
        var channel: String?
        var channelID: String?
        var channelURL: String?
        var uploader: String?
        var uploaderURL: String?
        var timestamp: Int64?
        var thumbnails: [Thumbnail]?

        struct Thumbnail: Decodable { var url: String? }

        enum CodingKeys: String, CodingKey {
            case id, url, ieKey = "ie_key", title, description, duration, viewCount = "view_count", channel
            case channelID = "channel_id", channelURL = "channel_url", uploader, uploaderURL = "uploader_url", timestamp, thumbnails
        }

        func result(kind: DiscoveryRequest.Kind, provider: String) -> DiscoveryResult? {
            guard let id, !id.isEmpty else { return nil }
            let thumbnail = thumbnails?.compactMap { $0.url.flatMap(URLQuery.http) }.last
            let channelPage = (channelURL ?? uploaderURL).flatMap(URLQuery.http)
                ?? channelID.map { "https://www.youtube.com/channel/\($0)" }
            let isChannel = ieKey == "YoutubeTab" || id.hasPrefix("UC") && id.count == 24
            switch kind {
            case .videos:
                guard !isChannel else { return nil }
                return DiscoveryResult(kind: .video, platform: .youtube, provider: provider, id: id, title: title ?? id,
                                       url: "https://www.youtube.com/watch?v=\(id)", channelName: channel ?? uploader,
                                       channelURL: channelPage, channelID: channelID, description: description,
                                       thumbnail: thumbnail, duration: duration.flatMap { Int(exactly: $0.rounded()) },
                                       views: viewCount, published: timestamp)
            case .channels:
                guard isChannel else { return nil }
                let page = url.flatMap(URLQuery.http) ?? "https://www.youtube.com/channel/\(id)"
                return DiscoveryResult(kind: .channel, platform: .youtube, provider: provider, id: channelID ?? id,
                                       title: title ?? channel ?? id, url: page, channelName: channel ?? title,
                                       channelURL: page, channelID: channelID ?? id, description: description, thumbnail: thumbnail)
            }
        }
    }
}
