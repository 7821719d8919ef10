import FeedParsing
import Hummingbird

/// `GET /` when the web app's files are missing: where they were looked for, and
/// what this server is, where the API is described, and what podcast apps sync with. Plain HTML,
/// no scripts and nothing loaded from elsewhere; everything taken from the configuration or the
/// request is escaped.
enum HomePage {
    static func response(configuration: ServerConfiguration, request: Request) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        let html = page(configuration: configuration, authority: request.head.authority)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// The page; `authority` is the request's `Host` (the address the browser used), else the
    /// one the server listens on.
    static func page(configuration: ServerConfiguration, authority: String?) -> String {
        let e = XMLText.escaped
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        let origin = "\(configuration.scheme)://" + (authority.flatMap { $0.isEmpty ? nil : $0 } ?? "\(host):\(configuration.port)")
        let access = configuration.open
            ? "It runs in open mode: no login, every request acts for the library's owner, on this machine only."
            : "Each person signs in with their feedctl user name and password (<code>feedctl user add NAME</code> makes one)."
        let places = configuration.webRoots.map { "<code>\(e($0))</code>" }
        let looked = places.isEmpty ? "the places searched (none was given)" : places.joined(separator: ", ")
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>feedctl \(e(configuration.version))</title>
            </head>
            <body>
            <h1>feedctl \(e(configuration.version))</h1>
            <p>This is <code>feedctl serve</code>: the HTTP API over a feedctl library of podcasts, YouTube and Rumble channels, \
            for the WebSearch app and for scripts. \(access)</p>
            <ul>
            <li>The API is described by its OpenAPI document: <a href="/api/openapi.json">/api/openapi.json</a>.</li>
            <li>Podcast apps (AntennaPod, gPodder, Kasts) sync through gpodder.net: give them the server \
            <code>\(e(origin))</code> with your user name and password.</li>
            <li>Is it up: <a href="/health">/health</a>.</li>
            </ul>
            <p>The web app's files are missing: none of \(looked) holds an <code>index.html</code>. \
            Install them (<code>scripts/install.sh</code> puts them in <code>PREFIX/share/feedctl/web</code>) \
            or start with <code>--web-root DIR</code>.</p>
            </body>
            </html>

            """
    }
}
