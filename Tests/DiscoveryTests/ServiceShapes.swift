import Foundation

/// Answers in the shapes the real services document, for the servers on 127.0.0.1 that stand
/// in for them (none of the services can be reached from the test machines).
enum ServiceShapes {
    /// iTunes Search API, `entity=podcast` (developer.apple.com, "iTunes Search API": the
    /// `resultCount`/`results` envelope; a podcast is `wrapperType` "track", `kind` "podcast").
    static func itunesPodcasts(feeds: [(name: String, feed: String)]) -> String {
        let results = feeds.enumerated().map { index, podcast in
            """
            {"wrapperType": "track", "kind": "podcast", "collectionId": \(1_000 + index), "trackId": \(1_000 + index),
             "artistName": "Artist \(index)", "collectionName": "\(podcast.name)", "trackName": "\(podcast.name)",
             "collectionViewUrl": "https://podcasts.apple.com/us/podcast/id\(1_000 + index)",
             "feedUrl": "\(podcast.feed)", "artworkUrl100": "https://is1-ssl.mzstatic.com/\(index)/100x100bb.jpg",
             "artworkUrl600": "https://is1-ssl.mzstatic.com/\(index)/600x600bb.jpg", "releaseDate": "2026-11-01T10:00:00Z",
             "trackCount": 12, "primaryGenreName": "Technology", "genreIds": ["1318", "26"]}
            """
        }
        return "{\"resultCount\": \(results.count), \"results\": [\(results.joined(separator: ","))]}"
    }

    /// iTunes Search API, `entity=podcastEpisode` (`kind` "podcast-episode").
    static let itunesEpisodes = """
        {"resultCount": 1, "results": [
         {"wrapperType": "podcastEpisode", "kind": "podcast-episode", "trackId": 1000650000001, "collectionId": 1001,
          "collectionName": "Sourdough Weekly", "trackName": "Starter from scratch", "feedUrl": "https://feeds.example.com/sourdough.xml",
          "episodeUrl": "https://media.example.com/ep1.mp3", "trackViewUrl": "https://podcasts.apple.com/us/podcast/starter/id1001?i=1000650000001",
          "releaseDate": "2026-11-10T06:00:00Z", "trackTimeMillis": 1815000, "shortDescription": "Flour and water.",
          "artworkUrl600": "https://is1-ssl.mzstatic.com/ep/600x600bb.jpg", "episodeFileExtension": "mp3"}]}
        """

    /// Podcast Index `GET /api/1.0/search/byterm` (podcastindex-org.github.io/docs-api).
    static func podcastIndexFeeds(feeds: [(name: String, feed: String)]) -> String {
        let entries = feeds.enumerated().map { index, podcast in
            """
            {"id": \(75_000 + index), "podcastGuid": "9b024349-ccf0-5f69-a609-6b82873eab3\(index)", "title": "\(podcast.name)",
             "url": "\(podcast.feed)", "originalUrl": "\(podcast.feed)", "link": "https://example.com/show\(index)",
             "description": "A show.", "author": "Author \(index)", "ownerName": "Owner", "image": "https://example.com/\(index).jpg",
             "artwork": "https://example.com/\(index)-art.jpg", "lastUpdateTime": 1795000000, "itunesId": \(1_000 + index),
             "language": "en", "categories": {"102": "Technology"}}
            """
        }
        return """
            {"status": "true", "feeds": [\(entries.joined(separator: ","))], "count": \(entries.count), "query": "q",
             "description": "Found matching feeds"}
            """
    }

    /// yt-dlp `-J --flat-playlist "ytsearch3:QUERY"` (yt-dlp 2025.x): a playlist whose entries
    /// are `url` results with what the search page showed.
    static let ytdlpVideos = """
        {"id": "sourdough", "title": "sourdough", "_type": "playlist", "extractor": "youtube:search", "extractor_key": "YoutubeSearch",
         "entries": [
          {"_type": "url", "ie_key": "Youtube", "id": "dQw4w9WgXcQ", "url": "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
           "title": "Sourdough for beginners", "description": null, "duration": 754.0, "channel_id": "UCaaaaaaaaaaaaaaaaaaaaaa",
           "channel": "Bake Club", "channel_url": "https://www.youtube.com/channel/UCaaaaaaaaaaaaaaaaaaaaaa", "uploader": "Bake Club",
           "uploader_url": "https://www.youtube.com/@bakeclub", "view_count": 120345,
           "thumbnails": [{"url": "https://i.ytimg.com/vi/dQw4w9WgXcQ/hqdefault.jpg", "height": 270, "width": 480}]},
          {"_type": "url", "ie_key": "Youtube", "id": "9bZkp7q19f0", "url": "https://www.youtube.com/watch?v=9bZkp7q19f0",
           "title": "Crumb shots", "duration": 61.0, "channel_id": "UCbbbbbbbbbbbbbbbbbbbbbb", "channel": "Crumb",
           "channel_url": "https://www.youtube.com/channel/UCbbbbbbbbbbbbbbbbbbbbbb", "view_count": 99, "thumbnails": []}
         ]}
        """

    /// yt-dlp `-J --flat-playlist` of the search page with the channel filter: channel entries
    /// (`ie_key` YoutubeTab).
    static let ytdlpChannels = """
        {"id": "sourdough", "title": "sourdough", "_type": "playlist", "extractor": "youtube:search_url",
         "entries": [
          {"_type": "url", "ie_key": "YoutubeTab", "id": "UCaaaaaaaaaaaaaaaaaaaaaa", "url": "https://www.youtube.com/channel/UCaaaaaaaaaaaaaaaaaaaaaa",
           "title": "Bake Club", "channel": "Bake Club", "channel_id": "UCaaaaaaaaaaaaaaaaaaaaaa",
           "channel_url": "https://www.youtube.com/channel/UCaaaaaaaaaaaaaaaaaaaaaa", "description": "We bake.",
           "channel_follower_count": 12000, "thumbnails": [{"url": "https://yt3.ggpht.com/a.jpg", "height": 88, "width": 88}]}
         ]}
        """

    /// Rumble's `/search/video?q=` as it is served today: the same `videostream` cards as its
    /// channel pages.
    static let rumbleVideoSearch = """
        <!DOCTYPE html><html><head><title>sourdough - Rumble</title></head><body>
        <main><section class="main-and-sidebar"><div class="videostream__list">
        <div class="videostream thumbnail__grid--item" data-video-id="1">
          <a class="videostream__link link" href="/v5abc12-sourdough-at-home.html?e9s=src_v1_s"></a>
          <div class="thumbnail__thumb"><img class="thumbnail__image" src="https://1a-1791.com/video/s8/1/a.jpg" alt="">
            <div class="videostream__status videostream__status--duration">12:34</div></div>
          <div class="videostream__footer"><h3 class="thumbnail__title" title="Sourdough at home">Sourdough at home</h3>
            <div class="videostream__data"><span class="videostream__views" data-views="1234">1.23K</span>
              <time class="videostream__time" datetime="2026-11-18T10:00:00-04:00">Nov 18</time></div>
            <a class="channel__link link" href="/c/BreadTV"><span class="channel__name" title="BreadTV">BreadTV</span></a></div>
        </div>
        <div class="videostream thumbnail__grid--item" data-video-id="2">
          <a class="videostream__link link" href="/v5abc34-rye-loaf.html"></a>
          <h3 class="thumbnail__title">Rye loaf</h3>
          <a class="channel__link link" href="/user/ryeguy"><span class="channel__name">ryeguy</span></a>
        </div>
        </div></section></main></body></html>
        """

    /// Rumble's `/search/channel?q=`: channel entries.
    static let rumbleChannelSearch = """
        <!DOCTYPE html><html><head><title>sourdough - Rumble</title></head><body><main>
        <ol class="videostream__list">
        <li class="video-listing-entry"><article class="channel-item">
          <a class="channel-item--a" href="/c/BreadTV"><img class="channel-item--img" src="https://sp.rmbl.ws/z0/b.jpg" alt="">
          <h3 class="channel-item--title">BreadTV</h3><span class="channel-item--subscribers">12.3K subscribers</span></a>
        </article></li>
        <li class="video-listing-entry"><article class="channel-item">
          <a class="channel-item--a" href="/user/ryeguy"><h3 class="channel-item--title">ryeguy</h3>
          <span class="channel-item--subscribers">85 subscribers</span></a>
        </article></li>
        </ol></main></body></html>
        """
}
