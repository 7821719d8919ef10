import FeedModel
import FeedText
import Foundation
import HTTPFetch

/// The one way a provider asks its service: a GET bounded by the provider's limits (its timeout
/// as the transfer's, its cap as the body's), failures as one line.
struct ProviderFetch: Sendable {
    let fetcher: Fetcher

    /// Seconds the transfer's own timeout runs past the provider's, when the federation's timer
    /// bounds the search (`FederatedSearch.run`): that timer, not a race with libcurl's, decides,
    /// so a late provider always reads `timed out after N s`; the transfer's is only a backstop.
    static let backstop = 5.0

    /// `federated`: the federation's timer bounds the request (else its own timeout does).
    func get(_ url: String, headers: [String: String] = [:], limits: ProviderLimits,
             federated: Bool = true) async throws(DiscoveryError) -> [UInt8] {
        let total = limits.timeout + (federated ? Self.backstop : 0)
        let request = FetchRequest(url: url, maxBytes: limits.maxBytes, connectTimeout: min(10, total),
                                   totalTimeout: total, stallTimeout: max(1, min(30, total.rounded(.up))),
                                   maxRedirects: 3, headers: headers)
        do {
            return try await fetcher.fetch(request).body
        } catch {
            // The URL without its query: the query is what was typed, said once already.
            throw DiscoveryError("\(URLQuery.withoutQuery(url)): \(error.reason)")
        }
    }

    func json<T: Decodable>(_ type: T.Type, _ url: String, headers: [String: String] = [:],
                            limits: ProviderLimits, federated: Bool = true) async throws(DiscoveryError) -> T {
        let body = try await get(url, headers: headers, limits: limits, federated: federated)
        do {
            return try JSONDecoder().decode(T.self, from: Data(body))
        } catch {
            throw DiscoveryError("the answer from \(URLQuery.withoutQuery(url)) is not the JSON expected (\(Self.reason(error)))")
        }
    }

    /// A decoding error in a few words (`key "results" not found`), not Foundation's paragraph.
    static func reason(_ error: Error) -> String {
        switch error as? DecodingError {
        case .keyNotFound(let key, _): return "key \"\(key.stringValue)\" not found"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "wrong type at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
        case .dataCorrupted: return "not JSON"
        default: return "\(error)"
        }
    }
}

/// Query strings for the services' search URLs.
enum URLQuery {
    /// Everything but RFC 3986's unreserved characters percent-encoded (so `&`, `=`, `+`, `#`
    /// in a query cannot change the URL's meaning).
    static func encode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }

    static func build(_ base: String, _ path: String, _ items: [(String, String)]) -> String {
        let trimmed = base.hasSuffix("/") ? String(base.dropLast()) : base
        return trimmed + path + "?" + items.map { encode($0.0) + "=" + encode($0.1) }.joined(separator: "&")
    }

    static func withoutQuery(_ url: String) -> String { String(url.prefix { $0 != "?" }) }

    /// Only http(s) URLs from a service's answer are kept (as from a feed): a `file:` URL in
    /// a result must never become something the player opens or the fetcher subscribes.
    static func http(_ url: String) -> String? { URLs.isHTTP(url) ? url : nil }
}
