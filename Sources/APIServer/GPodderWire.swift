import FeedModel
import Foundation
import LibraryStore

// The gpodder.net API v2's shapes (https://gpoddernet.readthedocs.io/en/latest/api/reference/),
// as AntennaPod, gPodder (mygpoclient) and Kasts send and read them.

/// `POST /api/2/devices/{user}/{device}.json`.
struct GPodderDeviceBody: Decodable {
    var caption: String?
    var type: String?
}

/// A device in `GET /api/2/devices/{user}.json`.
struct GPodderDevice: Encodable {
    var id: String
    var caption: String
    var type: String
    /// How many podcasts it is subscribed to: every device has all of the user's subscriptions.
    var subscriptions: Int
}

/// `POST /api/2/subscriptions/{user}/{device}.json`.
struct GPodderSubscriptionDelta: Decodable {
    var add: [String]?
    var remove: [String]?
}

/// `GET /api/2/subscriptions/{user}/{device}.json?since=N`.
struct GPodderSubscriptionChanges: Encodable {
    var add: [String]
    var remove: [String]
    var timestamp: Int64
}

/// What an upload answers: the next `since`, and the URLs the client should rewrite
/// (`[given, stored]`; an empty stored URL: the server refused it, drop it).
struct GPodderUploadResult: Encodable {
    var timestamp: Int64
    var updateURLs: [[String]]
    enum CodingKeys: String, CodingKey { case timestamp, updateURLs = "update_urls" }
}

/// `GET /api/2/episodes/{user}.json`.
struct GPodderActionChanges: Encodable {
    var actions: [GPodderAction]
    var timestamp: Int64
}

/// One episode action on the wire. Timestamps are ISO 8601 in UTC without a zone
/// (`2026-11-20T08:00:00`, gpodder.net's form); a client's may carry `Z`, a fraction, or be a
/// number of Unix seconds. Keys without a value are left out, as gpodder.net writes them.
struct GPodderAction: Codable {
    var podcast: String
    var episode: String
    var guid: String?
    var action: String
    var device: String?
    var timestamp: Int64?
    var started: Int?
    var position: Int?
    var total: Int?

    enum CodingKeys: String, CodingKey { case podcast, episode, guid, action, device, timestamp, started, position, total }

    init(_ action: EpisodeAction) {
        podcast = action.podcast; episode = action.episode; guid = action.guid; self.action = action.kind.rawValue
        device = action.device; timestamp = action.timestamp
        started = action.started; position = action.position; total = action.total
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        podcast = try c.decode(String.self, forKey: .podcast)
        episode = try c.decode(String.self, forKey: .episode)
        guid = try c.decodeIfPresent(String.self, forKey: .guid)
        action = try c.decode(String.self, forKey: .action)
        device = try c.decodeIfPresent(String.self, forKey: .device)
        started = try Self.seconds(c, .started)
        position = try Self.seconds(c, .position)
        total = try Self.seconds(c, .total)
        if let text = try? c.decodeIfPresent(String.self, forKey: .timestamp) {
            guard let time = WireDate.parse(text) else {
                throw DecodingError.dataCorruptedError(forKey: .timestamp, in: c, debugDescription: "not an ISO 8601 date: \"\(text)\"")
            }
            timestamp = time
        } else {
            timestamp = try c.decodeIfPresent(Double.self, forKey: .timestamp).map { Int64(exactly: $0.rounded(.down)) ?? 0 }
        }
    }

    /// Whole seconds; a client writing `12.0` (or `12.5`) is read as 12.
    private static func seconds(_ c: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws -> Int? {
        guard let value = try c.decodeIfPresent(Double.self, forKey: key) else { return nil }
        guard value.isFinite, abs(value) <= PlayerLimits.maxPosition else {
            throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "out of range (\(value))")
        }
        return Int(value.rounded(.down))
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(podcast, forKey: .podcast)
        try c.encode(episode, forKey: .episode)
        try c.encodeIfPresent(guid, forKey: .guid)
        try c.encode(action, forKey: .action)
        try c.encodeIfPresent(device, forKey: .device)
        if let timestamp { try c.encode(String(WireDate.string(timestamp).dropLast()), forKey: .timestamp) }
        try c.encodeIfPresent(started, forKey: .started)
        try c.encodeIfPresent(position, forKey: .position)
        try c.encodeIfPresent(total, forKey: .total)
    }

    /// The action as the store keeps it, or why it is refused (one line naming it).
    func episodeAction(index: Int, now: Int64) -> Result<EpisodeAction, APIError> {
        let podcast = podcast.trimmingCharacters(in: .whitespaces), episode = episode.trimmingCharacters(in: .whitespaces)
        guard !podcast.isEmpty, !episode.isEmpty else { return .failure(.badRequest("[\(index)]: podcast and episode must not be empty")) }
        guard let kind = EpisodeActionKind(rawValue: action.lowercased()) else {
            return .failure(.badRequest("[\(index)].action must be one of \(EpisodeActionKind.allCases.map(\.rawValue).joined(separator: ", ")), not \"\(action)\""))
        }
        var device = self.device.flatMap { $0.isEmpty ? nil : $0 }
        if let id = device {
            guard let valid = SyncRule.validDeviceID(id) else { return .failure(.badRequest("[\(index)].device is not a device id: \"\(id)\"")) }
            device = valid
        }
        if let position, position < -1 { return .failure(.badRequest("[\(index)].position must be -1 (none) or more, not \(position)")) }
        let guid = self.guid.flatMap { $0.isEmpty ? nil : $0 }
        return .success(EpisodeAction(podcast: podcast, episode: episode, guid: guid, kind: kind, device: device,
                                      timestamp: timestamp ?? now, started: started, position: position, total: total))
    }
}
