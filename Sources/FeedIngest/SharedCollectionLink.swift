import FeedModel
import Foundation
import LibraryStore

/// A published collection's link as a person pastes it (`SharingRule`): its page
/// (`…/shared/TOKEN`), its RSS (`…/shared/TOKEN/feed.xml`) or its JSON (`…/api/shared/TOKEN`), on
/// any feedctl server and under any path prefix it is served from (a reverse proxy's
/// `/feedctl/…`); the query and fragment are ignored. A path alone (`/shared/TOKEN`, as a server
/// without a public address shows it) names a collection of this library only. Read once,
/// here; what follows trusts it.
public struct SharedCollectionLink: Sendable, Equatable {
    /// The link as given (trimmed): what the follower sees it by.
    public let text: String
    public let token: ShareToken
    /// `scheme://host[:port][/prefix]`; nil for a path alone.
    public let origin: String?

    /// The link's JSON, where another server's collection is read; nil for a path alone.
    public var jsonURL: String? { origin.map { ShareLinks(token, base: $0).jsonURL } }

    /// The link `raw` is, or why it is none.
    public static func parse(_ raw: String) -> Result<SharedCollectionLink, FollowError> {
        let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        let refusal = FollowError.notALink("\(LibraryError.quoted(text)) is not a link of a published collection "
                                           + "(…/shared/TOKEN, …/shared/TOKEN/feed.xml or …/api/shared/TOKEN)")
        guard !text.isEmpty, text.utf8.count <= FieldLimits.maxURLBytes,
              !text.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 }),
              let parts = URLComponents(string: text) else { return .failure(refusal) }
        var origin: String?
        if let scheme = parts.scheme?.lowercased() {
            guard scheme == "http" || scheme == "https", let host = parts.host, !host.isEmpty else { return .failure(refusal) }
            let hostText = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
            origin = "\(scheme)://\(hostText)" + (parts.port.map { ":\($0)" } ?? "")
        } else if parts.host != nil || !parts.path.hasPrefix("/") {
            return .failure(refusal)
        }
        // The last `/shared/` of the path, then the token, then nothing, `/` or `/feed.xml`.
        let path = parts.path
        guard let marker = path.range(of: SharingRule.pagePrefix, options: .backwards) else { return .failure(refusal) }
        var prefix = String(path[..<marker.lowerBound])
        let rest = path[marker.upperBound...]
        let token = rest.prefix { $0 != "/" }
        let tail = rest.dropFirst(token.count)
        guard let parsed = ShareToken(token), ["", "/", SharingRule.rssSuffix].contains(String(tail)) else { return .failure(refusal) }
        // `…/api/shared/TOKEN` is the JSON of the server at `…`.
        let apiPrefix = String(SharingRule.jsonPrefix.dropLast(SharingRule.pagePrefix.count))
        if tail.isEmpty, prefix.hasSuffix(apiPrefix) { prefix.removeLast(apiPrefix.count) }
        return .success(SharedCollectionLink(text: text, token: parsed, origin: origin.map { $0 + prefix }))
    }

    private init(text: String, token: ShareToken, origin: String?) {
        self.text = text; self.token = token; self.origin = origin
    }
}

/// Why following a link failed: one line for a person.
public enum FollowError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text is no published collection's link.
    case notALink(String)
    /// The library refused or failed (`noSharedCollection`, `withdrawnCollection`,
    /// `alreadyFollowing`, one's own collection…); another server's 404 and 410 are said so too.
    case library(LibraryError)
    /// The other server could not be read, or did not answer a published collection.
    case unreadable(String)

    public var description: String {
        switch self {
        case .notALink(let why), .unreadable(let why): why
        case .library(let error): error.description
        }
    }
}
