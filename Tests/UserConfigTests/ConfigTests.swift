import Foundation
import UserConfig
import XCTest

/// The config file: typed settings over the defaults, one line naming the key for anything
/// wrong, and `config set` editing one line of a file a person wrote.
final class ConfigTests: XCTestCase {
    func testTheFileOverridesTheDefaults() throws {
        let config = try Config.parse("""
            # mine
            [player]
            seek_step = 10
            speed = 1.25

            [sync]
            every = 0

            [downloads]
            auto_download = 3
            delete_played_after = 7
            """)
        var expected = Config()
        expected.seekStep = 10
        expected.speed = 1.25
        expected.syncEvery = 0
        expected.autoDownload = 3
        expected.deletePlayedAfterDays = 7
        XCTAssertEqual(config, expected)
        XCTAssertEqual(try Config.parse(""), Config(), "an empty file is the defaults")
    }

    func testNoFileIsTheDefaults() throws {
        XCTAssertEqual(try Config.load(path: "/nonexistent/config.toml"), Config())
    }

    func testBadValuesAreOneLineNamingTheKey() {
        let cases: [(String, String)] = [
            ("[player]\nseek_step = 0", "player.seek_step must be a number from 0.1 to 3600 (seconds), not 0"),
            ("[player]\nseek_step = \"ten\"", "player.seek_step must be a number from 0.1 to 3600 (seconds), not \"ten\""),
            ("[player]\nspeed = 9", "player.speed must be a number from 0.5 to 3 (×), not 9"),
            ("[downloads]\nauto_download = 2.5", "downloads.auto_download must be a whole number from 0 to 1000, not 2.5"),
            ("[sync]\nevery = 1e300", "sync.every must be a number from 0 to 10080 (minutes), not 1e+300"),
            ("[player]\nseekstep = 3", "unknown key player.seekstep (`feedctl config list` shows the keys)"),
            ("speed = 1", "unknown key speed (`feedctl config list` shows the keys)"),
        ]
        for (text, message) in cases {
            XCTAssertThrowsError(try Config.parse(text), text) { error in
                XCTAssertEqual((error as? ConfigError)?.description, message)
            }
        }
        XCTAssertThrowsError(try Config.parse("[player\nseek_step = 1")) { error in
            let line = (error as? ConfigError)?.description ?? ""
            XCTAssertTrue(line.contains("line 1"), line)
            XCTAssertFalse(line.contains("\n"), line)
        }
    }

    /// `[discover]`: discovery's providers, as text and optional numbers, handed to discovery
    /// under the environment's names with the environment over them.
    func testDiscoverKeysBecomeDiscoverysVariablesUnderTheEnvironment() throws {
        let config = try Config.parse("""
            [discover]
            itunes_url = "http://127.0.0.1:9/itunes"
            itunes_timeout = 2.5
            rumble_max_kb = 64
            library_timeout = 1
            ytdlp = "/opt/yt-dlp/bin/yt-dlp"
            podcastindex_key = "KEY"
            podcastindex_secret = "s3cr\\\\et \\\"quoted\\\""
            """)
        XCTAssertEqual(config.discoverURLs, ["itunes": "http://127.0.0.1:9/itunes"])
        XCTAssertEqual(config.podcastIndexSecret, #"s3cr\et "quoted""#)
        let variables = config.discoveryEnvironment(overlaying: ["FEEDCTL_DISCOVER_ITUNES_TIMEOUT": "7", "HOME": "/home/x"])
        XCTAssertEqual(variables, [
            "FEEDCTL_DISCOVER_ITUNES_URL": "http://127.0.0.1:9/itunes", "FEEDCTL_DISCOVER_ITUNES_TIMEOUT": "7",
            "FEEDCTL_DISCOVER_RUMBLE_MAX_KB": "64", "FEEDCTL_DISCOVER_LIBRARY_TIMEOUT": "1",
            "FEEDCTL_DISCOVER_YTDLP": "/opt/yt-dlp/bin/yt-dlp", "FEEDCTL_PODCASTINDEX_KEY": "KEY",
            "FEEDCTL_PODCASTINDEX_SECRET": #"s3cr\et "quoted""#, "HOME": "/home/x",
        ], "the environment's timeout wins over the file's")
        XCTAssertEqual(Config().discoveryEnvironment(overlaying: [:]), [:], "nothing set: discovery's own defaults")

        let cases: [(String, String)] = [
            ("[discover]\nitunes_url = \"ftp://x\"", "discover.itunes_url must be an http(s) URL, not \"ftp://x\""),
            ("[discover]\nitunes_url = 3", "discover.itunes_url must be an http(s) URL, not 3"),
            ("[discover]\nrumble_timeout = 0", "discover.rumble_timeout must be a number from 0.001 to 600 (seconds), not 0"),
            ("[discover]\nrumble_max_kb = 1.5", "discover.rumble_max_kb must be a whole number from 1 to 48828 (KB), not 1.5"),
            ("[discover]\nlibrary_url = \"http://x/y\"", "unknown key discover.library_url (`feedctl config list` shows the keys)"),
            ("[discover]\npodcastindex_secret = \"\"", "discover.podcastindex_secret must be one line of text, not (the value given)"),
        ]
        for (text, message) in cases {
            XCTAssertThrowsError(try Config.parse(text), text) { error in
                XCTAssertEqual((error as? ConfigError)?.description, message)
            }
        }
    }

    /// `config set` writes text as a TOML string, and a value with `#` or quotes reads back as it was.
    func testSetWritesTextAsATOMLString() throws {
        let url = try Config.setting(named: "discover.rumble_url")
        var text = try ConfigEdit.set(url, to: "https://rumble.example/#top", in: "# mine\n")
        XCTAssertEqual(text, "# mine\n\n[discover]\nrumble_url = \"https://rumble.example/#top\"\n")
        text = try ConfigEdit.set(url, to: "https://other.example/", in: text.replacingOccurrences(of: "#top\"", with: "#top\"  # mine too"))
        XCTAssertEqual(text, "# mine\n\n[discover]\nrumble_url = \"https://other.example/\"  # mine too\n", "the value's # is not a comment; the comment stays")
        let secret = try Config.setting(named: "discover.podcastindex_secret")
        text = try ConfigEdit.set(secret, to: #"a"b\c"#, in: text)
        XCTAssertEqual(try Config.parse(text).podcastIndexSecret, #"a"b\c"#)
        XCTAssertTrue(secret.isSecret)
        XCTAssertFalse(secret.isSet(in: Config()))
    }

    func testLoadNamesTheFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("config-\(UUID().uuidString).toml").path
        try "[player]\nspeed = 0".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        XCTAssertThrowsError(try Config.load(path: path)) { error in
            XCTAssertEqual((error as? ConfigError)?.description, "\(path): player.speed must be a number from 0.5 to 3 (×), not 0")
        }
    }

    func testSetKeepsTheRestOfTheFile() throws {
        let setting = try Config.setting(named: "player.seek_step")
        let original = """
            # my settings
            [player]
            speed = 1.5   # podcasts are slow
              seek_step = 30  # long jumps

            [sync]
            every = 60
            """
        XCTAssertEqual(try ConfigEdit.set(setting, to: "10", in: original), """
            # my settings
            [player]
            speed = 1.5   # podcasts are slow
              seek_step = 10  # long jumps

            [sync]
            every = 60

            """)
        // A key the section lacks goes after its last line; a missing section is appended.
        let auto = try Config.setting(named: "downloads.auto_download")
        XCTAssertEqual(try ConfigEdit.set(auto, to: "4", in: original), original + "\n\n[downloads]\nauto_download = 4\n")
        let every = try Config.setting(named: "player.smart_resume_after")
        XCTAssertEqual(try ConfigEdit.set(every, to: "120", in: "[player]\nspeed = 2\n\n[sync]\nevery = 5\n"),
                       "[player]\nspeed = 2\nsmart_resume_after = 120\n\n[sync]\nevery = 5\n")
        XCTAssertEqual(try ConfigEdit.set(setting, to: "20", in: ""), "[player]\nseek_step = 20\n")
    }

    func testSetRefusesBadValuesAndShapesItCannotEdit() throws {
        let setting = try Config.setting(named: "player.seek_step")
        XCTAssertThrowsError(try ConfigEdit.set(setting, to: "fast", in: "")) { error in
            XCTAssertEqual((error as? ConfigError)?.description, "player.seek_step must be a number from 0.1 to 3600 (seconds), not fast")
        }
        // Dotted keys at the top level are valid TOML this editor does not follow: refused, not broken.
        XCTAssertThrowsError(try ConfigEdit.set(setting, to: "5", in: "player.seek_step = 30\n")) { error in
            XCTAssertEqual((error as? ConfigError)?.description,
                           "cannot change player.seek_step in this file without rewriting it; edit it by hand")
        }
    }

    /// `[oidc]` (issue 29): each key's one rule, the flags and the list, and what unset means.
    func testSingleSignOnKeys() throws {
        let config = try Config.parse("""
            [oidc]
            issuer = "https://tenant.auth0.com/"
            client_id = "feedctl-web"
            client_secret = "s3cret"
            allow_signup = true
            forbid_password_login = true
            mobile_redirect_uris = ["viewvault://auth", "https://app.example.com/callback"]
            """)
        XCTAssertEqual(config.oidcIssuer, "https://tenant.auth0.com/")
        XCTAssertEqual(config.oidcClientSecret, "s3cret")
        XCTAssertTrue(config.oidcAllowSignup)
        XCTAssertFalse(config.oidcLinkVerifiedEmail)
        XCTAssertTrue(config.oidcForbidPasswordLogin)
        XCTAssertEqual(config.oidcMobileRedirectURIs, ["viewvault://auth", "https://app.example.com/callback"])
        XCTAssertEqual(config.singleSignOnScopes, ["openid", "email", "profile"], "unset: the built-in scopes")
        XCTAssertEqual(try Config.parse("[oidc]\nissuer = \"http://127.0.0.1:9400\"").oidcIssuer, "http://127.0.0.1:9400",
                       "http only to loopback (tests, development)")

        let cases: [(String, String)] = [
            ("[oidc]\nissuer = \"http://id.example.com\"",
             "oidc.issuer must be the provider's https URL (http only to 127.0.0.1 or localhost), without ? or #, not \"http://id.example.com\""),
            ("[oidc]\nissuer = \"https://id.example.com/?x=1\"",
             "oidc.issuer must be the provider's https URL (http only to 127.0.0.1 or localhost), without ? or #, not \"https://id.example.com/?x=1\""),
            ("[oidc]\nscopes = \"email profile\"",
             "oidc.scopes must be scopes separated by spaces, openid among them (e.g. \"openid email profile\"), not \"email profile\""),
            ("[oidc]\nallow_signup = \"yes\"", "oidc.allow_signup must be true or false, not \"yes\""),
            ("[oidc]\nmobile_redirect_uris = \"viewvault://auth\"",
             "oidc.mobile_redirect_uris takes absolute URIs without # (e.g. viewvault://auth), comma-separated; not \"viewvault://auth\""),
            ("[oidc]\nmobile_redirect_uris = [\"javascript:alert(1)\"]",
             "oidc.mobile_redirect_uris takes absolute URIs without # (e.g. viewvault://auth), comma-separated; not \"javascript:alert(1)\""),
            ("[oidc]\nmobile_redirect_uris = [\"viewvault://auth#x\"]",
             "oidc.mobile_redirect_uris takes absolute URIs without # (e.g. viewvault://auth), comma-separated; not \"viewvault://auth#x\""),
            ("[oidc]\nclient_id = \"\"", "oidc.client_id must be one line of text, not \"\""),
        ]
        for (text, message) in cases {
            XCTAssertThrowsError(try Config.parse(text), text) { error in
                XCTAssertEqual((error as? ConfigError)?.description, message)
            }
        }

        // `config set`: true/false, and a list as comma-separated values (nothing empties it).
        let signup = try Config.setting(named: "oidc.allow_signup")
        var text = try ConfigEdit.set(signup, to: "true", in: "")
        XCTAssertEqual(text, "[oidc]\nallow_signup = true\n")
        XCTAssertThrowsError(try ConfigEdit.set(signup, to: "on", in: text))
        let uris = try Config.setting(named: "oidc.mobile_redirect_uris")
        text = try ConfigEdit.set(uris, to: "viewvault://auth, sora://signed-in", in: text)
        XCTAssertEqual(text, "[oidc]\nallow_signup = true\nmobile_redirect_uris = [\"viewvault://auth\", \"sora://signed-in\"]\n")
        XCTAssertEqual(uris.list(in: try Config.parse(text)), ["viewvault://auth", "sora://signed-in"])
        XCTAssertEqual(try Config.parse(try ConfigEdit.set(uris, to: "", in: text)).oidcMobileRedirectURIs, [])
        XCTAssertTrue(try Config.setting(named: "oidc.client_secret").isSecret)
    }
}
