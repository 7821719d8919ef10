import FeedModel
import Hummingbird

/// Reads a request's query parameters into typed values; a value that cannot be read is a 422
/// naming the parameter, never a default silently used in its place.
struct QueryParameters {
    let parameters: Hummingbird.Parameters

    init(_ request: Request) { parameters = request.uri.queryParameters }

    func string(_ name: String) -> String? {
        guard let value = parameters[name[...]] else { return nil }
        let text = String(value)
        return text.isEmpty ? nil : text
    }

    /// `parameter`'s value, nil when the query does not have it.
    func int(_ parameter: IntParameter) throws(APIError) -> Int? {
        guard let text = string(parameter.name) else { return nil }
        guard let value = Int(text) else { throw .unprocessable("\(parameter.name) must be a whole number, not \"\(text)\"") }
        guard parameter.range.contains(value) else { throw .unprocessable("\(parameter.name) must be \(parameter.bounds) (got \(value))") }
        return value
    }

    /// `parameter`'s value, else its default.
    func value(_ parameter: IntParameter) throws(APIError) -> Int {
        try int(parameter) ?? parameter.defaultValue
    }

    /// The page asked for (`page`, `per_page`), within `APILimits.maxPerPage`.
    func page() throws(APIError) -> PageRequest {
        let (page, perPage) = (try value(.page), try value(.perPage))
        do {
            return try PageRequest(page: page, perPage: perPage)
        } catch {
            // The parameters' ranges start at 1, so this is not reached; said all the same.
            throw .unprocessable("page and per_page must be at least 1")
        }
    }

    /// Whether the query asks for a page at all (a list answers whole to a client that does not).
    var asksForPage: Bool { string(IntParameter.page.name) != nil || string(IntParameter.perPage.name) != nil }

    func bool(_ name: String) throws(APIError) -> Bool? {
        guard let text = string(name) else { return nil }
        switch text.lowercased() {
        case "true", "1", "yes": return true
        case "false", "0", "no": return false
        default: throw .unprocessable("\(name) must be true or false, not \"\(text)\"")
        }
    }

    func platform(_ name: String = "platform") throws(APIError) -> Platform? {
        guard let text = string(name) else { return nil }
        guard let platform = Platform(rawValue: text.lowercased()) else {
            throw .unprocessable("\(name) must be one of \(Platform.allCases.map(\.rawValue).joined(separator: ", ")), not \"\(text)\"")
        }
        return platform
    }

    /// `1,2,3` (the backend's form; repeated parameters are read too).
    func ids(_ name: String) throws(APIError) -> [Int64] {
        var ids: [Int64] = []
        for value in parameters.getAll(name) {
            for part in value.split(separator: ",") {
                let text = part.trimmingCharacters(in: .whitespaces)
                if text.isEmpty { continue }
                guard let id = Int64(text), id > 0 else { throw .unprocessable("\(name) must be ids separated by commas, not \"\(value)\"") }
                ids.append(id)
            }
        }
        return ids
    }
}

/// A whole-number query parameter, stated once: its route reads it (`QueryParameters.int`) and
/// `/api/openapi.json` documents it (`minimum`, `maximum`, `default`) from the same value, so the
/// two cannot disagree.
struct IntParameter: Sendable {
    let name: String
    let range: ClosedRange<Int>
    let defaultValue: Int
    let about: String

    init(_ name: String, _ range: ClosedRange<Int>, default defaultValue: Int, _ about: String) {
        self.name = name; self.range = range; self.defaultValue = defaultValue; self.about = about
    }

    /// The range in words, for the 422 that refuses a value outside it.
    var bounds: String {
        range.upperBound == Int.max ? "at least \(range.lowerBound)" : "from \(range.lowerBound) to \(range.upperBound)"
    }

    // Paging: every paged list (`PageRequest`; one cap, `APILimits.maxPerPage`).
    static let page = IntParameter("page", 1...Int.max, default: 1, "page number, from 1")
    static let perPage = IntParameter("per_page", 1...APILimits.maxPerPage, default: APILimits.defaultPerPage, "entries per page")
    /// Saved videos page by offset, as the backend's do.
    static let limit = IntParameter("limit", 1...APILimits.maxPerPage, default: APILimits.defaultPerPage, "entries to answer")
    static let offset = IntParameter("offset", 0...Int(Int32.max), default: 0, "entries to skip")
    /// A position in seconds (stored as a 32-bit integer).
    static let progressSeconds = IntParameter("progress_seconds", 0...Int(Int32.max), default: 0, "seconds played")
    static let durationMin = IntParameter("duration_min", 0...Int(Int32.max), default: 0, "seconds, at least")
    static let durationMax = IntParameter("duration_max", 0...Int(Int32.max), default: Int(Int32.max), "seconds, at most")
    static let maxPerChannel = IntParameter("max_per_channel", 1...20, default: 5, "items per channel (the backend's bound)")
    /// gpodder.net's `since`: the last answer's timestamp; 0 is everything.
    static let since = IntParameter("since", 0...Int.max, default: 0, "the last answer's timestamp; 0: all")
}

/// A path parameter `{id}`: a positive whole number, else 422 (a malformed id is not "no such item").
func pathID(_ context: APIRequestContext, _ name: String = "id") throws(APIError) -> Int64 {
    guard let text = context.parameters.get(name), let id = Int64(text), id > 0 else {
        throw .unprocessable("\(name) must be a positive whole number")
    }
    return id
}
