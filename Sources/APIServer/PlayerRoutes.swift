import ControlProtocol
import FeedModel
import Hummingbird
import LibraryStore

/// `/api/player`: a phone becomes the daemon's remote. Commands go to the daemon over its
/// control socket (`PlayerRemote`); each answers the status after it took effect. Only library
/// items and http(s) URLs are played: a client may not name files on the server's machine.
struct PlayerRoutes {
    let remote: PlayerRemote
    let policy: FeedURLPolicy

    func add(to group: RouterGroup<APIRequestContext>) {
        group.get("player") { _, _ in try await status(.status, autostart: false) }
        group.get("player/queue") { _, _ in try await queue() }
        group.get("player/events") { request, context in
            // A HEAD (answered by this route) opens no stream: there is no body to send it in.
            if request.method == .head { return Response(status: .ok, headers: EventRoutes.streamHeaders) }
            return try await events(for: context.user?.id ?? .owner)
        }
        group.post("player/play") { request, context in
            let body = try await RequestBody.decode(PlayBody.self, request, context: context)
            return try await status(.play(try target(body.itemID, body.url, body.target), fromStart: body.fromStart ?? false), autostart: true)
        }
        group.post("player/pause") { _, _ in try await status(.pause, autostart: false) }
        group.post("player/resume") { _, _ in try await status(.resume, autostart: true) }
        group.post("player/stop") { _, _ in try await status(.stop, autostart: false) }
        group.post("player/seek") { request, context in
            let body = try await RequestBody.decode(SeekBody.self, request, context: context)
            return try await status(.seek(try body.target()), autostart: false)
        }
        group.post("player/speed") { request, context in
            let body = try await RequestBody.decode(SpeedBody.self, request, context: context)
            let range = PlaybackSpeed.range
            guard body.rate.isFinite, range.contains(body.rate) else {
                throw APIError.unprocessable("rate must be from \(PlaybackSpeed.text(range.lowerBound)) to \(PlaybackSpeed.text(range.upperBound))")
            }
            return try await status(.speed(body.rate), autostart: false)
        }
        group.post("player/volume") { request, context in
            let body = try await RequestBody.decode(VolumeBody.self, request, context: context)
            return try await status(.volume(try body.volume()), autostart: false)
        }
        group.post("player/queue") { request, context in
            let body = try await RequestBody.decode(QueueBody.self, request, context: context)
            guard !body.targets.isEmpty else { throw APIError.unprocessable("targets must name at least one item id or URL") }
            let targets = try body.targets.map { text throws(APIError) in try target(nil, nil, text) }
            _ = try await remote.perform(.queueAdd(targets, next: body.next ?? false), autostart: true)
            return try await queue()
        }
    }

    /// An item id or an http(s) URL (checked as feed URLs are); never a path.
    func target(_ itemID: Int64?, _ url: String?, _ text: String?) throws(APIError) -> PlayTarget {
        if let itemID { guard itemID > 0 else { throw .unprocessable("item_id must be positive") }; return .item(itemID) }
        guard let text = url ?? text else { throw .unprocessable("play takes item_id, url or target") }
        switch PlayTarget(text) {
        case .item(let id) where id > 0: return .item(id)
        case .url(let url):
            return .url(try policy.mediaURL(url))
        default: throw .unprocessable("target must be a library item id or an http(s) URL, not \"\(text)\"")
        }
    }

    /// The status after `command` took effect; the daemon's refusal is answered by its kind
    /// (`APIError.init(_: PlayerFailure)`), never by its text.
    func status(_ command: PlayerCommand, autostart: Bool) async throws(APIError) -> PlayerStatusResponse {
        let reply = try await remote.perform(command, autostart: autostart)
        guard let status = reply.status else { throw APIError(.badGateway, "the player answered without its status") }
        return PlayerStatusResponse(status)
    }

    func queue() async throws(APIError) -> QueueResponse {
        let items = try await remote.perform(.queueList, autostart: false).queue ?? []
        return QueueResponse(items: items, total: items.count)
    }

    /// Server-sent events: one `event: KIND` / `data: STATUS` pair per now-playing change (the
    /// current status first), a comment line when nothing happened for a while, until the client
    /// or the daemon goes away (then `event: error`). A stream the server cannot serve (no
    /// daemon, past a bound) is an error answer, never an empty 200.
    func events(for user: UserID) async throws(APIError) -> Response {
        let hub = remote.events
        let (id, messages) = try await hub.open(for: user)
        return Response(status: .ok, headers: EventRoutes.streamHeaders, body: ResponseBody { writer in
            do {
                for await message in messages {
                    var buffer = ByteBuffer()
                    switch message {
                    case .event(let event):
                        buffer.writeString("event: \(event.event.rawValue)\ndata: \(PlayerStatusResponse(event.status).jsonLine())\n\n")
                    case .heartbeat:
                        buffer.writeString(": still here\n\n")
                    case .ended(let why):
                        buffer.writeString("event: error\ndata: \(APIError.json(detail: why))\n\n")
                    }
                    try await writer.write(buffer)
                }
                await hub.close(id)
                try await writer.finish(nil)
            } catch {
                await hub.close(id)   // the client left
                throw error
            }
        })
    }
}

/// The status contract (`status --json`), with `sleep_at` as the API writes every date.
struct PlayerStatusResponse: ResponseEncodable, Sendable {
    var status: String
    var position: Double
    @Nullable var duration: Double?
    @Nullable var title: String?
    @Nullable var artist: String?
    @Nullable var itemID: Int64?
    @Nullable var url: String?
    var volume: Double
    var rate: Double
    @Nullable var chapter: String?
    @Nullable var error: String?
    @Nullable var sleepAt: String?

    init(_ s: PlayerStatus) {
        status = s.status.rawValue; position = s.position; duration = s.duration; title = s.title; artist = s.artist
        itemID = s.itemID; url = s.url; volume = s.volume; rate = s.rate; chapter = s.chapter; error = s.error
        sleepAt = s.sleepAt.map(WireDate.string)
    }

    enum CodingKeys: String, CodingKey {
        case status, position, duration, title, artist, itemID = "item_id", url, volume, rate, chapter, error, sleepAt = "sleep_at"
    }

    func jsonLine() -> String {
        (try? APIRequestContext.encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}

struct QueueResponse: ResponseEncodable, Sendable {
    var items: [QueueEntry]
    var total: Int
}

struct PlayBody: Decodable {
    var itemID: Int64?
    var url: String?
    var target: String?
    var fromStart: Bool?
    enum CodingKeys: String, CodingKey { case itemID = "item_id", url, target, fromStart = "from_start" }
}

struct SeekBody: Decodable {
    var position: Double?
    var offset: Double?

    /// Made valid here (`SeekTarget`), as every edge makes it.
    func target() throws(APIError) -> SeekTarget {
        do throws(PlayerValueError) {
            switch (position, offset) {
            case (let position?, nil): return try SeekTarget(position: position)
            case (nil, let offset?): return try SeekTarget(offset: offset)
            default: throw PlayerValueError("seek takes position (seconds from the start) or offset (seconds from here), one of them")
            }
        } catch {
            throw APIError.unprocessable(error.description)
        }
    }
}

struct SpeedBody: Decodable { var rate: Double }

struct VolumeBody: Decodable {
    /// Kept by its wire name; `volume()` is the value.
    private var raw: Double
    enum CodingKeys: String, CodingKey { case raw = "volume" }

    func volume() throws(APIError) -> PlayerVolume {
        do throws(PlayerValueError) { return try PlayerVolume(raw) } catch { throw APIError.unprocessable(error.description) }
    }
}
struct QueueBody: Decodable { var targets: [String]; var next: Bool? }
