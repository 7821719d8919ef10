import CZlib
import Digests
import Foundation
import Hummingbird
import NIOCore

/// The web app's files (`web/`), read once at startup and served from memory: nothing on disk
/// is opened per request, so no request path can reach a file the app does not hold.
/// - `index.html` (the shell) has its `%ASSETS%` placeholders replaced by `/assets/<hash>`, the
///   hash of every file, so each asset URL names one content and is cached for good
///   (`immutable`); the shell itself is `no-cache` with an ETag.
/// - `/sw.js` and `/manifest.webmanifest` live at the root (a service worker's scope is its
///   directory), `no-cache`.
/// Without the files, `/` says where they were looked for (`HomePage`).
struct WebApp: Sendable {
    /// One file as it is answered.
    struct Asset: Sendable {
        let body: ByteBuffer
        /// The body gzipped (once, at start), when that is smaller.
        let gzipped: ByteBuffer?
        let contentType: String
        let etag: String

        init(_ bytes: [UInt8], contentType: String, etag: String) {
            body = ByteBuffer(bytes: bytes)
            gzipped = WebApp.gzip(bytes).map { ByteBuffer(bytes: $0) }
            self.contentType = contentType
            self.etag = etag
        }

        /// The gzipped variant's tag (another representation, another strong ETag).
        var gzipETag: String { String(etag.dropLast()) + "-gzip\"" }
    }

    /// `bytes` as one gzip member, or nil when that is no smaller (a picture) or zlib fails.
    static func gzip(_ bytes: [UInt8]) -> [UInt8]? {
        guard bytes.count > 256 else { return nil }
        var out = [UInt8](repeating: 0, count: bytes.count + bytes.count / 1000 + 1024)
        var written = 0
        let status = bytes.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                feedctl_gzip(input.baseAddress, input.count, output.baseAddress, output.count, &written)
            }
        }
        guard status == 0, written < bytes.count * 9 / 10 else { return nil }
        return Array(out.prefix(written))
    }

    /// The directory served.
    let root: String
    /// `/assets/<hash>`, the prefix of every asset URL.
    let prefix: String
    let shell: Asset
    /// Paths relative to the root (`app/app.js`).
    let assets: [String: Asset]

    /// The shell's security headers (WEB.md): scripts and styles only from this server, no
    /// frames, no plugins; pictures and media from anywhere (feeds' artwork and enclosures).
    static let contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: https: http:; "
        + "media-src 'self' blob: https: http:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
        + "form-action 'self'; frame-ancestors 'none'; manifest-src 'self'; worker-src 'self'"
    static let cspHeader = HTTPFields.Element.Name("Content-Security-Policy")!   // valid field names, written out
    static let referrerHeader = HTTPFields.Element.Name("Referrer-Policy")!
    /// The files served at the root rather than under `/assets/<hash>`.
    static let rootFiles: Set<String> = ["sw.js", "manifest.webmanifest",
                                         // The manifest's icons (at the root: the manifest names no build hash).
                                         "icons/icon-192.png", "icons/icon-512.png", "icons/icon-maskable-512.png"]
    /// A bound on what is read into memory: the app is a few hundred KB.
    static let maxTotalBytes = 16 << 20

    /// The first of `candidates` holding an `index.html`, read whole; nil when none does.
    static func load(candidates: [String]) throws(ServerStartError) -> WebApp? {
        guard let root = candidates.first(where: { FileManager.default.fileExists(atPath: $0 + "/index.html") }) else { return nil }
        var files: [String: [UInt8]] = [:]
        var total = 0
        let base = URL(fileURLWithPath: root).standardizedFileURL.resolvingSymlinksInPath()
        guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: [.isRegularFileKey]) else {
            throw ServerStartError("cannot read the web app's files in \(root)")
        }
        for case let url as URL in walker {
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true else { continue }
            // The path under the root, as the enumerator found it (hidden files left out).
            let full = url.standardizedFileURL.path
            guard full.hasPrefix(base.path + "/") else { continue }
            let path = String(full.dropFirst(base.path.count + 1))
            if path.isEmpty || path.split(separator: "/").contains(where: { $0.hasPrefix(".") }) { continue }
            guard let data = FileManager.default.contents(atPath: url.path) else {
                throw ServerStartError("cannot read \(url.path) (the web app's files)")
            }
            total += data.count
            if total > maxTotalBytes { throw ServerStartError("the web app's files in \(root) are over \(maxTotalBytes >> 20) MB") }
            files[path] = [UInt8](data)
        }
        // The build's hash: every path and content, in a fixed order.
        var all: [UInt8] = []
        for path in files.keys.sorted() {
            all += Array(path.utf8) + [0] + (files[path] ?? []) + [0]
        }
        let hash: String
        do { hash = try hex(Digest.sha256.of(all)).prefix(16).description } catch { throw ServerStartError("cannot serve: \(error)") }
        let prefix = "/assets/\(hash)"
        var assets: [String: Asset] = [:]
        for (path, bytes) in files where path != "index.html" {
            assets[path] = Asset(bytes, contentType: contentType(path), etag: "\"\(hash)\"")
        }
        let html = String(decoding: files["index.html"] ?? [], as: UTF8.self).replacingOccurrences(of: "%ASSETS%", with: prefix)
        let shellTag: String
        do { shellTag = try hex(Digest.sha256.of(Array(html.utf8))).prefix(16).description } catch { throw ServerStartError("cannot serve: \(error)") }
        return WebApp(root: root, prefix: prefix,
                      shell: Asset(Array(html.utf8), contentType: "text/html; charset=utf-8", etag: "\"\(shellTag)\""),
                      assets: assets)
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }

    static func contentType(_ path: String) -> String {
        switch path.split(separator: ".").last.map({ $0.lowercased() }) ?? "" {
        case "js", "mjs": return "text/javascript; charset=utf-8"
        case "css": return "text/css; charset=utf-8"
        case "html": return "text/html; charset=utf-8"
        case "json": return "application/json; charset=utf-8"
        case "webmanifest": return "application/manifest+json; charset=utf-8"
        case "svg": return "image/svg+xml"
        case "png": return "image/png"
        case "ico": return "image/x-icon"
        case "woff2": return "font/woff2"
        case "txt", "md": return "text/plain; charset=utf-8"
        default: return "application/octet-stream"
        }
    }

    /// The shell, with the page's security headers; 304 when the browser has it.
    func shellResponse(_ request: Request) -> Response {
        var response = answer(shell, cacheControl: "no-cache", request)
        response.headers[Self.cspHeader] = Self.contentSecurityPolicy
        response.headers[Self.referrerHeader] = "same-origin"
        return response
    }

    /// What the app serves itself for a GET or HEAD of `path`, or nil: an asset under the
    /// current prefix, a root file. An asset of another build is not found (a reload of the
    /// `no-cache` shell names the current one).
    func file(_ path: String, _ request: Request) -> Response? {
        if path.hasPrefix("/assets/") {
            guard path.hasPrefix(prefix + "/"), let asset = assets[String(path.dropFirst(prefix.count + 1))] else { return nil }
            return answer(asset, cacheControl: "public, max-age=31536000, immutable", request)
        }
        let name = String(path.dropFirst())
        guard Self.rootFiles.contains(name), let asset = assets[name] else { return nil }
        return answer(asset, cacheControl: "no-cache", request)
    }

    /// The asset, gzipped when the browser takes it (`Vary: Accept-Encoding`); 304 when the
    /// browser's copy has the tag.
    private func answer(_ asset: Asset, cacheControl: String, _ request: Request) -> Response {
        let gzipped = asset.gzipped.flatMap { Self.acceptsGzip(request) ? $0 : nil }
        let etag = gzipped == nil ? asset.etag : asset.gzipETag
        var headers = HTTPFields()
        headers[.cacheControl] = cacheControl
        headers[.eTag] = etag
        headers[.vary] = "Accept-Encoding"
        let matches = request.headers[values: .ifNoneMatch].flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .contains { $0 == etag || $0 == "*" }
        if matches { return Response(status: .notModified, headers: headers) }
        headers[.contentType] = asset.contentType
        let body = gzipped ?? asset.body
        if gzipped != nil { headers[.contentEncoding] = "gzip" }
        headers[.contentLength] = String(body.readableBytes)
        return Response(status: .ok, headers: headers, body: request.method == .head ? .init() : .init(byteBuffer: body))
    }

    /// `Accept-Encoding` names gzip, not refused with `q=0`.
    static func acceptsGzip(_ request: Request) -> Bool {
        request.headers[values: .acceptEncoding].flatMap { $0.split(separator: ",") }.contains { coding in
            let parts = coding.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard parts.first == "gzip" || parts.first == "x-gzip" else { return false }
            let quality = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) }
            return quality.map { $0 > 0 } ?? true
        }
    }
}

/// Serves the web app: its files (`/assets/<hash>/…`, `/sw.js`, `/manifest.webmanifest`), and
/// the shell for any GET no route serves whose `Accept` takes HTML (the app's own routes,
/// `/feed`, `/item/42`: its router decides what a path shows). API paths stay JSON.
struct WebAppMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    let app: WebApp?

    func handle(_ request: Request, context: APIRequestContext,
                next: (Request, APIRequestContext) async throws -> Response) async throws -> Response {
        guard let app, request.method == .get || request.method == .head else { return try await next(request, context) }
        let path = request.uri.path
        if let file = app.file(path, request) { return file }
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound && Self.wantsPage(request) {
            return app.shellResponse(request)
        }
    }

    /// A browser's navigation (`Accept: text/html,…`) to a path outside the API.
    static func wantsPage(_ request: Request) -> Bool {
        let path = request.uri.path
        guard !path.hasPrefix("/api/"), path != "/api", !path.hasPrefix("/assets/") else { return false }
        return request.headers[values: .accept].contains { $0.lowercased().contains("text/html") }
    }
}
