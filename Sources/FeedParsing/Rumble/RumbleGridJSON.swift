import FeedText
import Foundation

/// The video list current Rumble pages embed in
/// `<rum-videos-grid><script type="application/json">{"items":[…]}</script></rum-videos-grid>`.
/// Every field is optional and loosely typed: one odd item must not lose the page.
struct RumbleGridJSON: Decodable {
    var items: [Lenient<Video>]

    struct Video: Decodable {
        var objectType: String?
        var title: String?
        var url: String?
        var thumb: String?
        var duration: LooseNumber?
        var uploadDate: String?
        var views: LooseNumber?
        var live: Bool?
        var isShort: Bool?
        var livestreamStatus: LooseNumber?
        var by: Author?

        enum CodingKeys: String, CodingKey {
            case objectType = "object_type", title, url, thumb, duration, uploadDate = "upload_date"
            case views, live, isShort = "is_short", livestreamStatus = "livestream_status", by
        }
    }

    struct Author: Decodable {
        var name: String?
        var url: String?
    }

    static func decode(_ bytes: [UInt8]) -> RumbleGridJSON? {
        try? JSONDecoder().decode(RumbleGridJSON.self, from: Data(bytes))
    }
}

/// Decodes a value, or nil when it is malformed, instead of failing the enclosing array.
struct Lenient<Value: Decodable>: Decodable {
    var value: Value?
    init(from decoder: any Decoder) throws { value = try? Value(from: decoder) }
}

/// A number sent as an integer, a float or a numeric string.
struct LooseNumber: Decodable {
    var value: Double
    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let d = try? c.decode(Double.self) { value = d; return }
        if let s = try? c.decode(String.self), let d = Double(s.trimmingWhitespace()) { value = d; return }
        throw DecodingError.dataCorruptedError(in: c, debugDescription: "not a number")
    }
    /// The value as an integer, nil when it is not finite or out of range.
    var int64: Int64? {
        guard value.isFinite, abs(value) < 9e15 else { return nil }
        return Int64(value.rounded())
    }
}
