import ControlProtocol
import Downloads
import FeedModel
import Foundation
import HTTPFetch
import LibraryStore
import NowPlaying
import PlayerCore

/// What a `play`/`queue add` target turned out to be.
struct Resolved: Sendable {
    var request: PlayRequest
    var entry: QueueEntry
    /// What a remote source's redirects may reach (`MediaRedirects`): its channel's for a
    /// library item; nil for a URL (decided by the URL's own host).
    var reach: AddressReach?
    /// What the library remembers it by (queue, last played).
    var target: MediaTarget { MediaTarget(request.key) }
}

/// Turns a target — a library item, an http(s) URL or a file the user named — into something
/// the player can open, with metadata and the saved resume position.
struct MediaResolver: Sendable {
    let library: any ItemStore & ChannelStore
    /// Where `feedctl download` put episodes: a downloaded item plays its file.
    let downloads: DownloadStore
    /// Bound on `yt-dlp` resolving a YouTube/Rumble page to an audio URL.
    var ytdlpTimeout: Double = 60
    /// Speed for items without a remembered channel speed (the daemon's `--speed`).
    var defaultRate: Double = 1

    func resolve(_ target: PlayTarget, fromStart: Bool) async throws -> Resolved {
        switch target {
        case .item(let id):
            return try await resolveItem(id, fromStart: fromStart)
        case .url(let url) where Platform.pagePlatform(ofURL: url) != nil:
            // A YouTube or Rumble page, not media: resolved as their library items are.
            let source = try MediaSource.parse(try await ytdlpAudioURL(url), allowLocalFiles: false)
            let meta = TrackMetadata(key: .url(url), title: url, url: url)
            return Resolved(request: PlayRequest(key: .url(url), source: source, metadata: meta, rate: defaultRate),
                            entry: QueueEntry(target: url, title: meta.title))
        case .url(let url):
            let source = try MediaSource.parse(url, allowLocalFiles: false)
            let name = URL(string: url)?.lastPathComponent.removingPercentEncoding ?? url
            let meta = TrackMetadata(key: .url(url), title: name.isEmpty ? url : name, url: url)
            return Resolved(request: PlayRequest(key: .url(url), source: source, metadata: meta, rate: defaultRate),
                            entry: QueueEntry(target: url, title: meta.title))
        case .local(let text):
            // The user named it, so a local file is allowed; the CLI made it absolute.
            let source = try MediaSource.parse(text, allowLocalFiles: true)
            guard case .localFile(let path) = source, FileManager.default.fileExists(atPath: path) else {
                throw PlayerFailure(.notFound, "no such file: \(text)")
            }
            let meta = TrackMetadata(key: .file(path), title: (path as NSString).lastPathComponent, url: "file://" + path)
            return Resolved(request: PlayRequest(key: .file(path), source: source, metadata: meta, rate: defaultRate),
                            entry: QueueEntry(target: path, title: meta.title))
        }
    }

    private func resolveItem(_ id: Int64, fromStart: Bool) async throws -> Resolved {
        let item = try await library.item(id: id)
        let source: MediaSource
        if let local = downloads.completedFile(item: id) {
            // Downloaded by the user (`feedctl download`): the one case a library item plays a local file.
            source = .localFile(local)
        } else if let enclosure = item.enclosureURL {
            // Feed media is untrusted: http(s) only, never a local path.
            source = try MediaSource.parse(enclosure, allowLocalFiles: false)
        } else if let page = item.url, item.platform.playsThroughPageResolver {
            source = try MediaSource.parse(try await ytdlpAudioURL(page), allowLocalFiles: false)
        } else {
            throw PlayerFailure(.cannotPlay, "item \(id) has no media to play")
        }
        let meta = TrackMetadata(key: .item(id), title: item.title, artist: item.channel,
                                 album: item.channel, length: item.duration.map(Double.init), artURL: item.thumbnail,
                                 url: item.url ?? item.enclosureURL, date: item.published.flatMap(Self.utcDay))
        let startAt = fromStart || item.watched ? 0 : Double(item.progress)
        let channel = try await library.playbackSettings(channelID: item.channelID)
        return Resolved(request: PlayRequest(key: .item(id), source: source, metadata: meta, startAt: startAt,
                                             rate: channel.speed.map(PlaybackSpeed.normalized) ?? defaultRate),
                        entry: QueueEntry(target: String(id), title: item.title, itemID: id), reach: channel.reach)
    }

    /// `2026-03-02`: an item's publish date (Unix seconds) as MPRIS's `xesam:contentCreated` takes
    /// it (ISO 8601), in UTC as the feed gave it.
    static func utcDay(_ epoch: Int64) -> String? {
        var seconds = time_t(clamping: epoch)
        var t = tm()
        guard gmtime_r(&seconds, &t) != nil else { return nil }
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(t.tm_year + 1900)-\(two(t.tm_mon + 1))-\(two(t.tm_mday))"
    }

    /// The direct audio URL of a YouTube or Rumble video (`YTDLP.audioURL`, as the server resolves it).
    private func ytdlpAudioURL(_ page: String) async throws -> String {
        do {
            return try await YTDLP.audioResolver(timeout: ytdlpTimeout).audioURL(ofPage: page)
        } catch {
            throw PlayerFailure(.cannotPlay, error.description)
        }
    }
}
