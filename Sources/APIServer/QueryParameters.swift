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

    func int(_ name: String, in range: ClosedRange<Int>? = nil) throws(APIError) -> Int? {
        guard let text = string(name) else { return nil }
        guard let value = Int(text) else { throw .unprocessable("\(name) must be a whole number, not \"\(text)\"") }
        if let range, !range.contains(value) {
            let bound = range.upperBound == Int.max ? "at least \(range.lowerBound)" : "from \(range.lowerBound) to \(range.upperBound)"
            throw .unprocessable("\(name) must be \(bound) (got \(value))")
        }
        return value
    }

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

/// A path parameter `{id}`: a positive whole number, else 422 (a malformed id is not "no such item").
func pathID(_ context: APIRequestContext, _ name: String = "id") throws(APIError) -> Int64 {
    guard let text = context.parameters.get(name), let id = Int64(text), id > 0 else {
        throw .unprocessable("\(name) must be a positive whole number")
    }
    return id
}
