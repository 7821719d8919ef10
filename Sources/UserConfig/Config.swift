import FeedModel
import Foundation
import TOMLKit

/// The defaults a person sets once, in `$XDG_CONFIG_HOME/feedctl/config.toml`: the daemon reads
/// them at start; a command-line option given to the daemon wins over the file.
public struct Config: Sendable, Equatable {
    /// Seconds `seek forward|back` moves.
    public var seekStep: Double = 15
    /// Playback speed for items whose channel has none remembered.
    public var speed: Double = 1
    /// A pause at least this long (seconds) makes `resume` go back `smartResumeRewind`; 0: never.
    public var smartResumeAfter: Double = SmartResume.afterPause
    public var smartResumeRewind: Double = SmartResume.rewind
    /// Minutes between the daemon's subscription polls; 0: never.
    public var syncEvery: Double = 30
    /// The newest episodes the daemon keeps downloaded per podcast channel; 0: none.
    public var autoDownload: Int = 0
    /// Days after an item was played that its download is deleted; 0: never.
    public var deletePlayedAfterDays: Double = 0
    /// `[discover]`: where discovery's providers are and how they are bounded (`feedctl discover`,
    /// `feedctl serve`), by provider name; unset keys keep discovery's built-in values, and the
    /// environment's `FEEDCTL_DISCOVER_*` win over the file (`discoveryEnvironment(overlaying:)`).
    public var discoverURLs: [String: String] = [:]
    public var discoverTimeouts: [String: Double] = [:]
    public var discoverMaxKB: [String: Double] = [:]
    public var ytdlp: String?
    public var podcastIndexKey: String?
    public var podcastIndexSecret: String?
    /// `[oidc]`: single sign-on through an OpenID provider (`feedctl serve`); off until
    /// `issuer` and `client_id` are set. `singleSignOnScopes` and `feedctl serve` give the unset
    /// keys their meaning.
    public var oidcIssuer: String?
    public var oidcClientID: String?
    public var oidcClientSecret: String?
    public var oidcScopes: String?
    public var oidcProviderName: String?
    public var oidcRedirectURI: String?
    public var oidcAllowSignup = false
    public var oidcLinkVerifiedEmail = false
    public var oidcForbidPasswordLogin = false
    public var oidcMobileRedirectURIs: [String] = []
    /// `[server] public_url`: the address others reach `feedctl serve` at (`https://feeds.example.org`),
    /// so published collections' links are whole URLs; nil: paths alone.
    public var publicURL: String?

    public init() {}

    /// What `oidc.scopes` means unset.
    public static let defaultOIDCScopes = "openid email profile"

    /// The scopes a sign-in asks for.
    public var singleSignOnScopes: [String] { (oidcScopes ?? Self.defaultOIDCScopes).split(separator: " ").map(String.init) }

    /// The providers with a base URL (the library has none: only its timeout).
    static let remoteProviders = ["itunes", "podcastindex", "youtube", "rumble", "toplist"]

    /// Every key, in the order `config list` prints them.
    public static let settings: [Setting] = [
        Setting("player.seek_step", unit: "seconds", range: 0.1...3600, \.seekStep,
                help: "how far seek forward|back and MPRIS Seek steps move"),
        Setting("player.speed", unit: "×", range: PlaybackSpeed.range, \.speed,
                help: "playback speed for channels without one remembered"),
        Setting("player.smart_resume_after", unit: "seconds", range: 0...86_400, \.smartResumeAfter,
                help: "a pause this long makes resume go back a little (0: never)"),
        Setting("player.smart_resume_rewind", unit: "seconds", range: 0...300, \.smartResumeRewind,
                help: "how far resume goes back after such a pause"),
        Setting("sync.every", unit: "minutes", range: 0...10_080, \.syncEvery,
                help: "how often the daemon polls subscriptions (0: never)"),
        Setting("downloads.auto_download", range: 0...1000, \.autoDownload,
                help: "newest episodes kept downloaded per podcast channel after each sync (0: off)"),
        Setting("downloads.delete_played_after", unit: "days", range: 0...3650, \.deletePlayedAfterDays,
                help: "delete a download this long after its item was played (0: never)"),
        Setting("server.public_url", .httpURL, \.publicURL,
                help: "the address others reach feedctl serve at: published collections' links are whole URLs"),
    ] + remoteProviders.flatMap { name in [
        Setting("discover.\(name)_url", .httpURL, \.discoverURLs[name], help: "\(name)'s base URL (discover, serve)"),
        Setting("discover.\(name)_timeout", unit: "seconds", range: 0.001...600, \.discoverTimeouts[name],
                help: "how long \(name) may take"),
        Setting("discover.\(name)_max_kb", unit: "KB", range: 1...Double(FeedLimits.maxBytes / 1024), whole: true, \.discoverMaxKB[name],
                help: "the most of \(name)'s answer that is read"),
    ] } + [
        Setting("discover.library_timeout", unit: "seconds", range: 0.001...600, \.discoverTimeouts["library"],
                help: "how long the library's search may take"),
        Setting("discover.ytdlp", .anyText, \.ytdlp, help: "yt-dlp's path, for YouTube search"),
        Setting("discover.podcastindex_key", .anyText, \.podcastIndexKey, help: "Podcast Index's API key (with its secret)"),
        Setting("discover.podcastindex_secret", .secret, \.podcastIndexSecret, help: "Podcast Index's API secret"),
        Setting("oidc.issuer", .issuerURL, \.oidcIssuer, help: "single sign-on: the OpenID provider's issuer URL, exactly as its tokens say it"),
        Setting("oidc.client_id", .anyText, \.oidcClientID, help: "single sign-on: this server's client id at the provider"),
        Setting("oidc.client_secret", .secret, \.oidcClientSecret, help: "single sign-on: the client's secret (unset: a public client, PKCE alone)"),
        Setting("oidc.scopes", .scopes, \.oidcScopes, help: "single sign-on: scopes asked for (built-in: \"\(defaultOIDCScopes)\")"),
        Setting("oidc.provider_name", .anyText, \.oidcProviderName, help: "single sign-on: the name on the sign-in button (built-in: the issuer's host)"),
        Setting("oidc.redirect_uri", .httpURL, \.oidcRedirectURI,
                help: "single sign-on: this server's callback as registered at the provider (built-in: from the request's Host)"),
        Setting("oidc.allow_signup", \.oidcAllowSignup, help: "single sign-on: a first sign-in may create a user"),
        Setting("oidc.link_verified_email", \.oidcLinkVerifiedEmail,
                help: "single sign-on: a verified email links to the user named that email"),
        Setting("oidc.forbid_password_login", \.oidcForbidPasswordLogin,
                help: "users with a single sign-on identity cannot sign in with a password"),
        Setting("oidc.mobile_redirect_uris", each: .redirectURI, \.oidcMobileRedirectURIs,
                help: "single sign-on: where phone apps may be sent back with their token (comma-separated)"),
    ]

    /// The variables discovery's settings are read from (`DiscoverySettings(environment:)`): the
    /// file's `[discover]` keys under their names there, then `environment` over them.
    public func discoveryEnvironment(overlaying environment: [String: String]) -> [String: String] {
        var merged: [String: String] = [:]
        for setting in Self.settings where setting.name.hasPrefix("discover.") {
            if let value = setting.value(in: self) { merged[Self.environmentName(of: setting.name)] = value }
        }
        return merged.merging(environment) { _, fromEnvironment in fromEnvironment }
    }

    /// The variables discovery reads, for `feedctl discover` and `feedctl serve`: the config
    /// file's `[discover]` (at `defaultPath`) under `environment`.
    public static func discoveryEnvironment(_ environment: [String: String]) throws(ConfigError) -> [String: String] {
        try load(path: defaultPath(environment: environment)).discoveryEnvironment(overlaying: environment)
    }

    /// `discover.itunes_url` → `FEEDCTL_DISCOVER_ITUNES_URL`; Podcast Index's key and secret are
    /// `FEEDCTL_PODCASTINDEX_KEY` and `…_SECRET`.
    static func environmentName(of key: String) -> String {
        let name = key.dropFirst("discover.".count).uppercased()
        return name.hasPrefix("PODCASTINDEX_KEY") || name.hasPrefix("PODCASTINDEX_SECRET") ? "FEEDCTL_\(name)" : "FEEDCTL_DISCOVER_\(name)"
    }

    /// Whether a secret (`oidc.client_secret`, Podcast Index's key and secret) is set: the file
    /// is then for its owner's eyes only.
    public var holdsSecret: Bool { Config.settings.contains { $0.isSecret && $0.isSet(in: self) } }

    public static func setting(named name: String) throws(ConfigError) -> Setting {
        guard let setting = settings.first(where: { $0.name == name }) else {
            throw ConfigError("unknown key \(name) (`feedctl config list` shows the keys)")
        }
        return setting
    }

    /// `$XDG_CONFIG_HOME/feedctl/config.toml`, else `~/.config/feedctl/config.toml`.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let path = environment["FEEDCTL_CONFIG"], !path.isEmpty { return path }
        let base = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.config"
        return base + "/feedctl/config.toml"
    }

    /// The file's settings over the defaults; no file is all defaults. A syntax error, an unknown
    /// key or a bad value is one line naming the file and the key.
    public static func load(path: String) throws(ConfigError) -> Config {
        guard FileManager.default.fileExists(atPath: path) else { return Config() }
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw ConfigError("\(path): cannot read it: \(error.localizedDescription)")
        }
        do { return try parse(text) } catch { throw ConfigError("\(path): \(error.description)") }
    }

    /// Parses a config file's text.
    public static func parse(_ text: String) throws(ConfigError) -> Config {
        let table: TOMLTable
        do { table = try TOMLTable(string: text) } catch {
            throw ConfigError(String(describing: error))
        }
        var config = Config()
        for (section, value) in table {
            guard let inner = value.table else { throw ConfigError("unknown key \(section) (`feedctl config list` shows the keys)") }
            for (key, value) in inner {
                try setting(named: "\(section).\(key)").apply(value, to: &config)
            }
        }
        return config
    }
}

/// A config problem, in one line.
public struct ConfigError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
