import APIServer
import FeedModel
import Foundation
import XCTest

/// `/api/openapi.json` says what the server does, checked on the running server so that the two
/// cannot drift apart (issue 26: 54 requests valid by the document were refused, and the
/// server answered 17 statuses it did not list). For every operation, every bound the document
/// states is probed: a query parameter, a path id or a body field at its bounds (and each value
/// of an enumeration) is never refused as out of range (a 422 naming it), and past its bounds
/// it is refused (4xx); and every status any probe got is one the document lists for it.
final class OpenAPIDriftTests: XCTestCase {
    private var schemas: [String: Any] = [:]

    /// A schema with `$ref` resolved, and `["string", "null"]` types read as their first.
    private func resolve(_ schema: [String: Any]) -> [String: Any] {
        if let ref = schema["$ref"] as? String, let name = ref.split(separator: "/").last,
           let target = schemas[String(name)] as? [String: Any] { return resolve(target) }
        return schema
    }

    private func type(_ schema: [String: Any]) -> String? {
        (schema["type"] as? String) ?? (schema["type"] as? [String])?.first
    }

    /// A value the schema allows: its enumeration's first, its minimum, its shortest text.
    private func sample(_ raw: [String: Any]) -> Any {
        let schema = resolve(raw)
        if let values = schema["enum"] as? [String] { return values[0] }
        switch type(schema) {
        case "integer": return (schema["minimum"] as? Int) ?? 1
        case "number": return (schema["minimum"] as? Double) ?? 0
        case "boolean": return false
        case "array":
            let items = (schema["items"] as? [String: Any]).map(sample)
            return (schema["minItems"] as? Int ?? 0) > 0 ? [items ?? "a"] : []
        case "object":
            let properties = schema["properties"] as? [String: Any] ?? [:]
            var object: [String: Any] = [:]
            // Of alternatives (`anyOf`/`oneOf` of required fields), the first.
            let alternative = ((schema["anyOf"] ?? schema["oneOf"]) as? [[String: Any]])?.first?["required"] as? [String] ?? []
            for name in (schema["required"] as? [String] ?? []) + alternative {
                if let property = properties[name] as? [String: Any] { object[name] = sample(property) }
            }
            return object
        default:
            return String(repeating: "a", count: max(1, schema["minLength"] as? Int ?? 1))
        }
    }

    /// Values at a schema's bounds (allowed) and past them (forbidden); where it states no
    /// bound, far values (allowed: a bound the server keeps must be in the document).
    private func probes(_ raw: [String: Any]) -> (allowed: [Any], forbidden: [Any]) {
        let schema = resolve(raw)
        if let values = schema["enum"] as? [String] { return (values, ["not-one-of-them"]) }
        var allowed: [Any] = [], forbidden: [Any] = []
        switch type(schema) {
        case "integer":
            if let low = schema["minimum"] as? Int { allowed.append(low); if low > Int.min { forbidden.append(low - 1) } } else { allowed.append(-1_000_000) }
            if let high = schema["maximum"] as? Int { allowed.append(high); if high < Int.max { forbidden.append(high + 1) } } else { allowed.append(1 << 40) }
        case "number":
            if let low = schema["minimum"] as? Double { allowed.append(low); forbidden.append(low - 1) } else { allowed.append(-1e12) }
            if let high = schema["maximum"] as? Double { allowed.append(high); forbidden.append(high + 1) } else { allowed.append(1e12) }
        case "string" where schema["format"] == nil && schema["pattern"] == nil:
            if let low = schema["minLength"] as? Int { allowed.append(String(repeating: "a", count: low)); if low > 0 { forbidden.append(String(repeating: "a", count: low - 1)) } }
            if let high = schema["maxLength"] as? Int { allowed.append(String(repeating: "a", count: high)); forbidden.append(String(repeating: "a", count: high + 1)) }
            else { allowed.append(String(repeating: "a", count: 10_000)) }
        case "string":
            if let low = schema["minLength"] as? Int { allowed.append(String(repeating: "a", count: low)); if low > 0 { forbidden.append(String(repeating: "a", count: low - 1)) } }
            if let high = schema["maxLength"] as? Int { allowed.append(String(repeating: "a", count: high)); forbidden.append(String(repeating: "a", count: high + 1)) }
        case "array":
            if let low = schema["minItems"] as? Int, low > 0 { forbidden.append([Any]()) }
        default: break
        }
        return (allowed, forbidden)
    }

    private func query(_ value: Any) -> String {
        "\(value)".addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "\(value)"
    }

    private func json(_ value: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed]), as: UTF8.self)
    }

    /// As the owner under `--open`.
    func testTheServerTakesWhatTheDocumentAllowsAndRefusesPastItsBounds() async throws {
        let h = try await APIHarness()
        let probed = try await probeEveryOperation(h)
        XCTAssertGreaterThan(probed, 300)
    }

    /// As a signed-in user who is neither the owner nor an admin (the player's and the users'
    /// routes answer 403).
    func testTheServerAnswersASignedInUserAsTheDocumentSays() async throws {
        let h = try await APIHarness(logins: true)
        try await h.addUser("member", password: "member's password", admin: false)
        h.token = try await h.login("member", "member's password")
        let probed = try await probeEveryOperation(h)
        XCTAssertGreaterThan(probed, 300)
    }

    /// Probes every operation the document lists; how many requests it made.
    private func probeEveryOperation(_ h: APIHarness) async throws -> Int {
        try await h.addUser("gp", password: "gpodder password", admin: false)
        let basic = "Basic " + Data("gp:gpodder password".utf8).base64EncodedString()
        _ = try await h.object("POST", "/api/subscriptions", body: #"{"url": "\#(h.feeds.url("/podcast.xml"))"}"#, status: 201)
        let document = try await h.object("GET", "/api/openapi.json")
        schemas = ((document["components"] as? [String: Any])?["schemas"] as? [String: Any]) ?? [:]
        let paths = try XCTUnwrap(document["paths"] as? [String: [String: [String: Any]]])

        var probed = 0
        for (template, operations) in paths.sorted(by: { $0.key < $1.key }) where template != "/api/player/events" {
            for (method, operation) in operations.sorted(by: { $0.key < $1.key }) {
                let name = "\(method.uppercased()) \(template)"
                let documented = Set((operation["responses"] as? [String: Any] ?? [:]).keys.compactMap(Int.init))
                let parameters = operation["parameters"] as? [[String: Any]] ?? []
                let bodySchema = ((((operation["requestBody"] as? [String: Any])?["content"] as? [String: Any])?["application/json"]
                                   as? [String: Any])?["schema"] as? [String: Any])
                let baseBody = try bodySchema.map { try json(sample($0)) } ?? (method == "get" || method == "delete" ? nil : "{}")
                // Query parameters the route cannot do without go in every call (each probe replaces its own).
                let required = parameters.filter { $0["in"] as? String == "query" && $0["required"] as? Bool == true }
                    .compactMap { parameter -> (String, Any)? in
                        guard let name = parameter["name"] as? String, let schema = parameter["schema"] as? [String: Any] else { return nil }
                        return (name, sample(schema))
                    }
                func path(id: Any = 999_999, _ field: String? = nil, _ value: Any? = nil) -> String {
                    let base = template.replacingOccurrences(of: "{id}", with: "\(id)").replacingOccurrences(of: "{item_id}", with: "\(id)")
                        .replacingOccurrences(of: "{user}", with: "gp").replacingOccurrences(of: "{device}", with: "phone")
                        .replacingOccurrences(of: "{token}", with: String(repeating: "0", count: SharingRule.tokenCharacters))
                    var pairs = required.filter { $0.0 != field }.map { "\($0.0)=\(query($0.1))" }
                    if let field, let value { pairs.append("\(field)=\(query(value))") }
                    return pairs.isEmpty ? base : base + "?" + pairs.joined(separator: "&")
                }
                /// One request; its status must be documented; nil when `allowed` holds, else the detail.
                func call(_ target: String, _ body: String?) async throws -> (status: Int, detail: String) {
                    let reply = template.hasPrefix("/api/2/")
                        ? try await h.curl(method.uppercased(), target, body: body, headers: ["Authorization": basic])
                        : try await h.call(method.uppercased(), target, body: body)
                    probed += 1
                    XCTAssertTrue(documented.contains(reply.status), "\(name) answered \(reply.status), which the document does not list: \(reply.text.prefix(300))")
                    let object = (try? JSONSerialization.jsonObject(with: reply.body)) as? [String: Any]
                    return (reply.status, object?["detail"] as? String ?? "")
                }
                /// Whether a refusal names `field` (as a word: `id` is not named by `item_id`).
                func names(_ detail: String, _ field: String) -> Bool {
                    detail.range(of: "(^|[^A-Za-z0-9_])\(field)($|[^A-Za-z0-9_])", options: .regularExpression) != nil
                }
                func assertAllowed(_ result: (status: Int, detail: String), _ field: String, _ value: Any) {
                    XCTAssertFalse(result.status == 422 && names(result.detail, field),
                                   "\(name): \(field) = \("\(value)".prefix(40)) is within the document's bounds but refused: \(result.detail)")
                }
                func assertForbidden(_ result: (status: Int, detail: String), _ field: String, _ value: Any) {
                    XCTAssertTrue((400..<500).contains(result.status),
                                  "\(name): \(field) = \("\(value)".prefix(40)) is past the document's bounds but answered \(result.status)")
                }

                _ = try await call(path(), baseBody)
                for parameter in parameters {
                    guard let field = parameter["name"] as? String, let schema = parameter["schema"] as? [String: Any] else { continue }
                    let (allowed, forbidden) = probes(schema)
                    if parameter["in"] as? String == "path" {
                        guard field == "id" || field == "item_id" else { continue }
                        for value in allowed { assertAllowed(try await call(path(id: value), baseBody), field, value) }
                        for value in forbidden { assertForbidden(try await call(path(id: value), baseBody), field, value) }
                        continue
                    }
                    for value in allowed { assertAllowed(try await call(path(field, value), baseBody), field, value) }
                    for value in forbidden { assertForbidden(try await call(path(field, value), baseBody), field, value) }
                }
                guard let bodySchema else { continue }
                let body = resolve(bodySchema)
                guard let base = sample(body) as? [String: Any], let properties = body["properties"] as? [String: Any] else { continue }
                // Fields of which a body takes only one (`oneOf`): each is probed without the others.
                let exclusive = Set(((body["oneOf"] as? [[String: Any]]) ?? []).flatMap { $0["required"] as? [String] ?? [] })
                for (field, property) in properties.sorted(by: { $0.key < $1.key }) {
                    guard let property = property as? [String: Any] else { continue }
                    let (allowed, forbidden) = probes(property)
                    let base = exclusive.contains(field) ? base.filter { !exclusive.contains($0.key) } : base
                    for value in allowed {
                        var object = base; object[field] = value
                        assertAllowed(try await call(path(), try json(object)), field, value)
                    }
                    for value in forbidden {
                        var object = base; object[field] = value
                        assertForbidden(try await call(path(), try json(object)), field, value)
                    }
                }
            }
        }
        return probed
    }
}
