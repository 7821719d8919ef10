import FeedText

// The product's rules, each stated once. Everything else — Swift and SQL — reads them from here.

/// What `feed --mode short-form` shows: items of at most `maxDuration` seconds, or flagged short
/// by their source (YouTube `/shorts/` links and Shorts playlists, Rumble shorts). The store
/// selects them with SQL spelled from this (`Schema.shortFormPredicate`).
public enum ShortForm {
    /// Longest duration, in seconds, that counts as short-form.
    public static let maxDuration = 180
}

/// The WebSearch backend's duration presets, which the HTTP API serves as feed modes
/// (`mode=quick_watch`, `mode=deep_dive`: unwatched items, newest first, within these bounds).
public enum DurationPresets {
    /// quick_watch: at most this many seconds.
    public static let quickWatchMax = 600
    /// deep_dive: at least this many seconds.
    public static let deepDiveMin = 1800
}

/// The HTTP API's bounds (`feedctl serve`).
public enum APILimits {
    /// The largest request body read (an OPML import is the largest a client sends).
    public static let maxBodyBytes = 1_048_576
    /// Entries per page of every paged list (the feed, the history, the subscriptions, saved
    /// videos): from 1 to this. One cap for all: the backend's history took 200 and its feed 100,
    /// and a client asking the feed for 200 loses nothing by getting them.
    public static let maxPerPage = 200
    /// The page size when a client names none.
    public static let defaultPerPage = 50
}

/// What one user may subscribe to through the server (`feedctl serve`; issue 26: a 1 MiB OPML
/// of 25,215 entries took 3 minutes of a core and 377 MB, and made 25,215 subscriptions). The
/// CLI's owner is not bound by these: their machine, their choice.
public enum SubscriptionRule {
    /// Subscriptions one user may have: a subscribe or an import that would pass it is refused
    /// (422) with the numbers, before anything is fetched.
    public static let maxPerUser = 5_000
    /// Feeds one import may name: an OPML document's feed outlines, a gpodder upload's `add`
    /// list. A longer one is refused (422) whole: split it.
    public static let maxPerImport = 2_000
}

/// How long `feedctl serve` keeps a connection that does not get on with its request, and how
/// many one client may hold at once (issue 26: 1,000 slowloris connections were kept for 30 s,
/// idle ones for 95 s and more, and ~20,000 idle connections from one address made `/health`
/// time out for everyone). A connection past a bound is closed without an answer.
public enum ConnectionLimits {
    /// A connection with no request in progress (just opened, or after an answer) is closed
    /// after this many seconds without the first byte of a request.
    public static let idleSeconds = 30
    /// A request's head (request line and header fields) must be complete within this many
    /// seconds of its first byte: a head sent a byte at a time (slowloris) is cut off here.
    public static let headSeconds = 10
    /// A request's body must be complete within this many seconds of its head: the largest
    /// body (`APILimits.maxBodyBytes`) then needs about 17 KB/s. Answering has no bound (an
    /// event stream lasts as long as its client listens).
    public static let bodySeconds = 60
    /// Connections open at once from one client address (an IPv6 client's whole /64, which one
    /// host commonly holds); past this a new one is closed as soon as it is accepted. Behind a
    /// reverse proxy every connection is the proxy's: keep its upstream connections under this.
    public static let maxPerAddress = 64
    /// After this many connections were open at once, the server gives the memory they took back
    /// to the system (glibc's `malloc_trim`) once they are all closed again (issue 26: RSS stayed
    /// at 280 MB after a storm of idle connections).
    public static let stormConnections = 256
}

/// Saving a video by its URL when the library does not hold it (`POST /api/saved-videos`): the
/// server reads the page for its title, picture and duration, as far as this.
public enum SavedPageRule {
    /// The largest page read (a YouTube watch page is about 1 MB).
    public static let maxPageBytes = 5_000_000
    /// The largest oEmbed document read.
    public static let maxOEmbedBytes = 65_536
    /// Seconds the page's fetch may take in all: a client waits for it.
    public static let totalTimeout = 20.0
    /// The most kept of any one thing a page says (a title, a description): a page's meta
    /// attribute can be as large as the page.
    public static let maxFieldCharacters = 10_000
}

/// Collections as the API takes them (the backend's bounds, `app/schemas/collection.py`).
public enum CollectionRule {
    public static let maxNameCharacters = 100
    public static let maxDescriptionCharacters = 500
    /// The collection `POST /api/collections/quick-add` fills, made on first use.
    public static let favoritesName = "Favorites"
    /// What one copy or move between collections may name (`item_type` item, channel or
    /// collection): a longer list is refused whole, before anything is read.
    public static let maxTransferSubjects = 1_000
    /// The items one copy or move may take once channels and collections are expanded: one
    /// transaction, so a bound on how long it holds the library.
    public static let maxTransferItems = 10_000
}

/// Published collections and following them (issue 29). A collection is published under a
/// link whose token is `tokenBytes` random bytes (from the system's CSPRNG), written as hex:
/// unguessable, and safe in a URL as it is. Anyone with the link reads what the owner chose to
/// share, nothing else; withdrawing it (unpublishing, deleting the collection or its owner)
/// makes the link answer 410 for good, and publishing again makes a new one. A collection
/// followed on another feedctl server is read again at each sync, at most every
/// `refreshInterval` seconds when nothing asks for it; its answer holds at most `maxItems`
/// items (a larger one is refused, as a feed past its size cap is).
public enum SharingRule {
    public static let tokenBytes = 20
    /// The token's length as written (two hex digits a byte).
    public static let tokenCharacters = tokenBytes * 2
    public static let refreshInterval: Int64 = SyncPolicy.defaultPollInterval
    public static let maxItems = 10_000
    /// The path a published collection's page is under (`/shared/TOKEN`); its RSS is
    /// `/shared/TOKEN/feed.xml`, its JSON `/api/shared/TOKEN`.
    public static let pagePrefix = "/shared/"
    public static let jsonPrefix = "/api/shared/"
    public static let rssSuffix = "/feed.xml"
}

/// Playback speed: the range people can choose, its step, and how a speed is written.
public enum PlaybackSpeed {
    public static let range: ClosedRange<Double> = 0.5...3.0
    public static let step = 0.05

    /// `value` clamped to `range` and rounded to a `step` multiple; 1 when not a number.
    public static func normalized(_ value: Double) -> Double {
        guard value.isFinite else { return 1 }
        let clamped = min(range.upperBound, max(range.lowerBound, value))
        // Through hundredths so 1.15 is 1.15, not 1.1500000000000001.
        return ((clamped / step).rounded() * step * 100).rounded() / 100
    }

    /// As people read it: `1.0`, `1.5`, `1.25`.
    public static func text(_ rate: Double) -> String {
        guard rate.isFinite else { return "\(rate)" }
        let hundredths = Int((rate * 100).rounded())
        let whole = hundredths / 100, fraction = hundredths % 100
        if fraction == 0 { return "\(whole).0" }
        return fraction % 10 == 0 ? "\(whole).\(fraction / 10)" : "\(whole).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}

/// Bounds on what a feed may cost.
public enum FeedLimits {
    /// The largest feed document fetched or parsed (counted after decompression).
    public static let maxBytes = 50_000_000
}

/// Catch-up: what you missed. Read this first when asking "why is this item not in catch-up?":
/// - in-progress items come first (`WatchState.inProgress`, most recently played first);
/// - then untouched items (`WatchState.untouched`) published in the last `defaultDays` days
///   (`--days`): an item without a publish date is never "missed" (the parser leaves a date it
///   cannot read empty, never "now");
/// - an item stops being missed once it is in progress or watched; the player marks it watched
///   when `WatchRule.isHeard` holds.
public enum CatchUp {
    public static let defaultDays = 14
    /// Catch-up and discovery are computed, not counted: how many items they list (the API's
    /// `total`, the CLI's number of pages) is counted up to this many.
    public static let maxCounted = 10_000
}

/// Where an item stands for its listener. The store keeps it per item; the raw values are what
/// the store writes (the SQL of the `items.state` column is generated from them).
public enum WatchState: Int, Sendable, CaseIterable {
    case untouched = 0
    case inProgress = 1
    case watched = 2

    /// Where an item stands from what is stored of it: the watched mark wins, then any
    /// progress. (The library's triggers spell this in SQL; a test checks they agree.)
    public init(watched: Bool, progress: Int) {
        self = watched ? .watched : progress > 0 ? .inProgress : .untouched
    }
}

/// When an item counts as heard (marked watched, added to history): played to its end, or
/// ≥ 95 % with under 2 minutes left (outros and ads are skipped by many).
public enum WatchRule {
    public static let heardFraction = 0.95
    public static let heardRemaining = 120.0

    public static func isHeard(position: Double, duration: Double?) -> Bool {
        guard let duration, duration > 0 else { return false }
        return position >= duration - 0.5 || (position >= heardFraction * duration && duration - position < heardRemaining)
    }
}

/// A channel's name: the feed's own title, trimmed; a feed without one keeps the name it has, or
/// is named after its feed URL when new.
public enum ChannelName {
    /// The name a feed gives itself, or nil when its title is blank.
    public static func fromFeed(title: String) -> String? {
        let trimmed = title.trimmingWhitespace()
        return trimmed.isEmpty ? nil : trimmed
    }

    /// The name of a channel being added.
    public static func forNewChannel(feedTitle: String, feedURL: String) -> String {
        fromFeed(title: feedTitle) ?? feedURL
    }
}

/// When to poll a channel again.
public enum SyncPolicy {
    public static let defaultPollInterval: Int64 = 3600
    public static let maxBackoff: Int64 = 86_400

    /// Seconds to wait after the `consecutiveErrors`-th failure in a row: the poll interval doubled
    /// per failure after the first, at least the server's Retry-After, never more than a day.
    public static func backoff(consecutiveErrors: Int, pollInterval: Int64, retryAfter: Int64?) -> Int64 {
        let base = max(pollInterval, 1)
        let doublings = min(max(consecutiveErrors - 1, 0), 32)
        let (scaled, overflow) = base.multipliedReportingOverflow(by: Int64(1) << doublings)
        let exponential = overflow ? maxBackoff : scaled
        return min(max(exponential, retryAfter ?? 0), maxBackoff)
    }
}

/// The largest durations the player takes, at the CLI and on the control socket alike, so that
/// no arithmetic or conversion on them can overflow (a sleep of `1e300` seconds once crashed the
/// daemon converting it to nanoseconds): positions and seek offsets up to a billion seconds
/// (about 31 years, what the CLI's duration parser reads), the sleep timer up to a week ahead.
public enum PlayerLimits {
    public static let maxPosition: Double = 1_000_000_000
    /// Seconds into an item: a seek's target, a duration typed on the command line.
    public static let positions: ClosedRange<Double> = 0...maxPosition
    /// A seek's move from where it is, either way.
    public static let offsets: ClosedRange<Double> = -maxPosition...maxPosition
    public static let maxSleep: Double = 7 * 24 * 3600

    /// Why `seconds` is no sleep timer, nil when it is one: more than nothing, at most `maxSleep`
    /// ahead. The one check the CLI, the control socket and the player service make.
    public static func sleepRefusal(_ seconds: Double) -> String? {
        guard seconds.isFinite, seconds > 0 else { return "sleep needs a duration (30m, 90s, 1h30m), end-of-item or off" }
        guard seconds <= maxSleep else { return "sleep is at most \(Int(maxSleep / 86400)) days ahead" }
        return nil
    }
    /// At most this many seek steps at once (`{"cmd": "seek", "steps": N}`).
    public static let maxSeekSteps = 1000

    /// `seconds` as nanoseconds for a timer: never negative, never past `maxPosition`, never a trap.
    public static func nanoseconds(_ seconds: Double) -> UInt64 {
        guard seconds.isFinite, seconds > 0 else { return 0 }
        return UInt64(min(seconds, maxPosition) * 1e9)
    }
}

/// What `feedctl serve` asks of the player daemon, whose control clients are few (64): one
/// connection carries its events to every `/api/player/events` stream, and commands take at most
/// `requests` connections at once, so the server never holds all of them and the CLI finds room.
public enum PlayerRemoteLimits {
    /// Event streams one user may keep open (tabs, phones); past it, 429.
    public static let streamsPerUser = 128
    /// Event streams the server keeps open in all; past it, 503.
    public static let streams = 512
    /// Commands the server sends the daemon at once; past it, 503 ("the player is busy").
    public static let requests = 16
}

/// `GET /api/items/{id}/audio` (what the web app's `<audio>` plays): the media of an item that is
/// not downloaded is proxied by the server, each stream an upstream connection held as long as
/// its listener keeps it open, so they are counted.
public enum AudioProxyLimits {
    /// Proxied streams one user may have open at once (a player or two, each of which may open a
    /// second range request while seeking, and the offline download); past it, 429.
    public static let streamsPerUser = 6
    /// Proxied streams the server keeps open in all (below the fetcher's 16 connections per
    /// host, so even all of them to one host never wait inside libcurl); past it, 503.
    public static let streams = 16
    /// Seconds to connect to the media's host (each redirect's too).
    public static let connectSeconds = 10.0
    /// Seconds without a byte from the media's host after which a stream is ended (a stream
    /// paused because its listener is not reading is not stalled).
    public static let stallSeconds = 30.0
    /// Seconds a listener may take nothing while the answer waits for it (a paused `<audio>` keeps
    /// its connection open) before its stream is closed and its place given back; the player
    /// asks again with a Range when it plays on, as every browser does.
    public static let listenerIdleSeconds = 300.0
    /// Bytes held per stream while its listener reads slower than the media's host sends.
    public static let bufferBytes = 256 * 1024
    /// YouTube and Rumble items' resolved audio URLs kept (most recently used first).
    public static let resolvedURLs = 256
    /// How long a resolved URL is used when it names no expiry of its own (YouTube's carry
    /// `expire=`); one that does is used until `resolvedURLMargin` seconds before it.
    public static let resolvedURLSeconds: Int64 = 1800
    public static let resolvedURLMargin: Int64 = 300
}

/// Smart resume, as AntennaPod does it: resuming after a pause longer than `afterPause` seconds
/// starts `rewind` seconds earlier, so the listener finds the thread of what was said. These are
/// the defaults; the daemon takes both as parameters (`PlayerService`'s `ResumeRewind`).
public enum SmartResume {
    public static let afterPause = 60.0
    public static let rewind = 5.0
}

/// How `search` ranks and matches: every word of the query must appear (in any of the three
/// fields, accents ignored: "cafe" finds "Café"); the last word also as the start of a longer one
/// ("sourdough nutri" finds "nutrition", as you type); a match in a title counts most, then in
/// the channel's name, then in the show notes (BM25 with these weights). The search index's rank
/// is spelled from the weights; a test checks the live index still says so.
///
/// BM25 weighs each word by how rare it is, and SQLite's FTS5 finds that out by reading every
/// item that has the word: a word in most items ("episode") costs a pass over the whole index
/// and, being everywhere, tells the items apart by nothing. So a search ranks by relevance only
/// when each of its words is in at most `rankedWordLimit` items; otherwise its matches come
/// newest first (by discovery).
public enum SearchRule {
    public static let titleWeight = 10.0
    public static let channelWeight = 5.0
    public static let notesWeight = 1.0
    /// The last word typed matches as a prefix.
    public static let prefixMatching = true
    public static let rankedWordLimit = 5_000
}

/// A value a player command cannot take, in one line; each edge (the CLI, the HTTP API, the
/// control socket) reports it in its own way.
public struct PlayerValueError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// The player's volume: a fraction of full scale, 0 (silent) to 1 (as the stream plays it; never
/// amplified). Valid by construction: made where a volume is decoded (the CLI's argument, the
/// HTTP body, the control line, MPRIS), then trusted. The library keeps the last one set
/// (`player_state.volume`, whose CHECK is spelled from `range`).
public struct PlayerVolume: Sendable, Equatable {
    public static let range = 0.0...1.0
    public static let full = PlayerVolume(checked: 1)
    public let value: Double

    /// `value` when it is within `range`.
    public init(_ value: Double) throws(PlayerValueError) {
        guard Self.range.contains(value) else { throw PlayerValueError("volume must be between 0 and 1 (0–100 %)") }
        self.value = value
    }

    /// `value` held to `range` (not a number: full), for MPRIS (negative is 0, by its spec) and
    /// the volume the library remembers.
    public init(clamping value: Double) {
        self.value = value.isNaN ? 1 : min(Self.range.upperBound, max(Self.range.lowerBound, value))
    }

    private init(checked value: Double) { self.value = value }

    /// A change of the volume, at most the whole range either way; the player clamps the result.
    public struct Change: Sendable, Equatable {
        public static let range = -1.0...1.0
        public let value: Double

        public init(_ value: Double) throws(PlayerValueError) {
            guard Self.range.contains(value) else { throw PlayerValueError("volume change must be between -1 and 1 (±100 %)") }
            self.value = value
        }
    }
}

/// Where a seek goes, valid by construction (the seek's rule, stated once): a position of
/// `PlayerLimits.positions`, an offset of `PlayerLimits.offsets`, or 1 to
/// `PlayerLimits.maxSeekSteps` seek steps either way. Made where a seek is decoded (the CLI's
/// argument, the HTTP body, the control line, MPRIS), then trusted.
public struct SeekTarget: Sendable, Equatable {
    public enum Move: Sendable, Equatable {
        /// Seconds from the current position (negative: back).
        case by(Double)
        /// Seconds from the start.
        case to(Double)
        /// This many of the daemon's seek steps (`--seek-step`) from the current position (negative: back).
        case steps(Int)
    }

    public let move: Move

    public init(position seconds: Double) throws(PlayerValueError) {
        guard PlayerLimits.positions.contains(seconds) else {
            throw PlayerValueError("seek position must be between 0 and \(Int(PlayerLimits.maxPosition)) seconds")
        }
        move = .to(seconds)
    }

    public init(offset seconds: Double) throws(PlayerValueError) {
        guard PlayerLimits.offsets.contains(seconds) else {
            throw PlayerValueError("seek offset must be at most \(Int(PlayerLimits.maxPosition)) seconds either way")
        }
        move = .by(seconds)
    }

    public init(steps count: Int) throws(PlayerValueError) {
        guard count != 0, (-PlayerLimits.maxSeekSteps...PlayerLimits.maxSeekSteps).contains(count) else {
            throw PlayerValueError("seek steps must be 1 to \(PlayerLimits.maxSeekSteps) either way")
        }
        move = .steps(count)
    }

    /// An offset held to `PlayerLimits.offsets` (not a number: none), for MPRIS, whose Seek takes
    /// any Int64 of microseconds (9.2e12 s) and wants a seek past the end to act as Next.
    public init(clampingOffset seconds: Double) {
        let offsets = PlayerLimits.offsets
        move = .by(seconds.isNaN ? 0 : min(offsets.upperBound, max(offsets.lowerBound, seconds)))
    }
}

/// How the fetcher shares hosts and connections: polite to each host, and no feed's slowness
/// costs another feed anything (issue 14).
public enum FetchLimits {
    /// Transfers to one host (scheme, name, port) that run at once at full speed, as browsers
    /// allow (6). Others to that host wait in the fetcher's queue, where waiting does not count
    /// against their timeouts.
    public static let connectionsPerHost = 6
    /// A transfer still running this many seconds after it started is "slow": it stops counting
    /// against its host's bound and the fetcher's concurrency, so the feeds queued behind it
    /// start. It keeps its own connection and its own timeouts.
    public static let slowAfter = 3.0
    /// Slow transfers running at once, beyond the fetcher's concurrency: past this many, new
    /// transfers wait for a slot again (the bound on sockets held by slow servers).
    public static let maxSlowTransfers = 36
    /// The hard bound on connections to one host, slow ones included (libcurl's
    /// CURLMOPT_MAX_HOST_CONNECTIONS): the fetcher starts nothing beyond it.
    public static let maxConnectionsPerHost = 16
    /// The largest response head (status line and header fields) accepted.
    public static let maxHeaderBytes = 256 * 1024
}

/// Bounds on the work of parsing one document (issue 14): past any of them the document is an
/// error for that feed alone, with one line saying which bound it broke.
public enum ParseLimits {
    /// Elements open at once. libxml2's XML parser stops at 256 by itself; its HTML parser has no
    /// bound and costs depth × stray end tags.
    public static let maxDepth = 200
    /// Attributes of one element: libxml2 checks each new attribute against all earlier ones,
    /// so n attributes cost n² (320,000 took 18 s).
    public static let maxAttributes = 1_000
    /// Elements in one document (the 50 MB corpus feed has ~400,000).
    public static let maxElements = 2_000_000
    /// CPU seconds one document may take to parse (a 50 MB feed takes ~1 s).
    public static let timeBudget = 10.0
    /// Internal entities may expand to `max(expansionAllowance, expansionRatio × document size)`
    /// bytes in all, never more than `maxExpansion` (flat amplification: one 100 KB entity used
    /// 22,000 times made 2.2 GB).
    public static let expansionRatio = 10
    public static let expansionAllowance = 1_000_000
    public static let maxExpansion = 20_000_000
}

/// The most of each field an item or channel keeps. Longer text is cut at a character boundary
/// and ends with `…` (a feed is not refused for one long field); a longer URL is dropped, since
/// a cut URL leads nowhere.
public enum FieldLimits {
    /// Titles, authors, names, guids and other one-line fields, in UTF-8 bytes.
    public static let maxLineBytes = 2_000
    /// Descriptions, in UTF-8 bytes.
    public static let maxTextBytes = 100_000
    /// URLs (links, enclosures, images, chapters), in bytes.
    public static let maxURLBytes = 8_192
    /// Show notes with their markup, in UTF-8 bytes: room for `maxTextBytes` of text with its
    /// markup. The stored markup (`Item.notesMarkup`) is cut to it at a character boundary; the
    /// sanitized notes (`NotesSanitizer`) at a text or tag boundary, closing tags included, end
    /// with `marker` and have every open element closed.
    public static let maxNotesHTMLBytes = 150_000
    /// What ends cut text.
    public static let marker = "…"

    /// `text` cut to at most `limit` UTF-8 bytes (marker included) at a character boundary.
    public static func cut(_ text: String, to limit: Int) -> String {
        guard text.utf8.count > limit else { return text }
        let room = max(0, limit - marker.utf8.count)
        let utf8 = text.utf8
        var end = utf8.index(utf8.startIndex, offsetBy: room)
        // Back off continuation bytes (10xxxxxx) to the start of a scalar.
        while end > utf8.startIndex, utf8[end] & 0xC0 == 0x80 { end = utf8.index(before: end) }
        return String(decoding: utf8[..<end], as: UTF8.self) + marker
    }
}

/// How much a parse says about what it recovered from (`Feed.warnings`): a broken feed can make
/// libxml2 report an error per element, and a channel keeps its current warnings in the library,
/// so only the first `maxKept` are kept, then one line "and N more".
public enum FeedWarnings {
    public static let maxKept = 20

    /// `all` as kept: the first `maxKept`, then "and N more" when some were left out.
    public static func capped(_ kept: [String], dropped: Int) -> [String] {
        dropped > 0 ? kept + ["and \(dropped) more"] : kept
    }
}

/// Who uses a library. Channels and their items are shared (a feed is polled once however many
/// follow it); subscriptions, watch state and progress, saved items, collections, history, the
/// up-next queue, the player's state and per-channel speeds belong to one user. The library's
/// owner is user `ownerID`: the CLI and the daemon act for them, an existing library migrates
/// with everything theirs, and they cannot be removed. Per-user rows default to the owner in SQL
/// (`Schema.ownerID`), so what an older tool writes stays the owner's.
public enum LibraryUsers {
    public static let ownerID: Int64 = 1
    /// The owner's name when the migration finds no `$USER`.
    public static let fallbackOwnerName = "owner"
    /// The longest user name (UTF-8 bytes); names are one line without control characters.
    public static let maxNameBytes = 64

    /// `name` trimmed when it is a usable user name, else nil.
    public static func validName(_ name: String) -> String? {
        let trimmed = name.trimmingWhitespace()
        guard !trimmed.isEmpty, trimmed.utf8.count <= maxNameBytes,
              !trimmed.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        else { return nil }
        return trimmed
    }
}

/// Which addresses a fetch made for a subscription may connect to (issue 26). Every user of a
/// server may make it fetch public addresses; loopback, private and link-local ones (the
/// machine's own services, its LAN, a cloud's metadata) only the library's owner may, from their
/// own CLI, or a server the owner started with `--allow-private-feeds`. Each subscription keeps
/// what its user was allowed when they added it, and a channel (shared by its followers) may
/// reach what all of its subscriptions may: what one follower may not reach is fetched for
/// nobody, whoever polls it (the daemon, the server, a cron `sync`), redirects and downloads
/// included.
public enum AddressReach: Sendable, Equatable {
    case publicOnly
    case anyAddress

    /// What both may reach.
    public func narrowed(to other: AddressReach) -> AddressReach {
        self == .anyAddress ? other : .publicOnly
    }
}

/// Login sessions (issue 15): a token of `tokenBytes` random bytes is handed out once; the
/// library keeps only its hash. A session lives `lifetime` seconds from its creation.
public enum SessionRule {
    public static let tokenBytes = 32
    public static let lifetime: Int64 = 30 * 86_400
    /// A session's "last used" is refreshed at most this often: every request checks its token,
    /// and a write per request would serialize the server's requests on the library's write lock.
    public static let lastUsedResolution: Int64 = 60
    /// Sessions a server keeps in memory while its library's disk is full (a login must not fail
    /// for want of room to write its session): past this many, a login answers 507 as any write.
    public static let maxKeptWhileDiskFull = 1_000
}

/// Single sign-ons under way (`/api/auth/oidc/…`, issue 29): a person has `lifetime` seconds
/// from the start to the provider's callback, and the library keeps at most `capacity` of them
/// (the start needs no login: past that the oldest go first, so nobody can fill the disk). Every
/// replica of a server reads them, and replicas' clocks differ a little: one started up to
/// `clockLeeway` seconds in a replica's future still counts. A re-authentication (a fresh sign-in
/// at the provider before deleting an account) counts `reauthenticationLifetime` seconds after
/// the person signed in there.
public enum SignInRule {
    public static let lifetime: Int64 = 600
    public static let capacity = 10_000
    public static let clockLeeway: Int64 = 60
    public static let reauthenticationLifetime: Int64 = 300

    /// The starts of the sign-ins that may still finish at `now`: `after < started <= notAfter`.
    /// The stores purge the others with exactly this (their SQL takes both bounds from here).
    public static func liveStarts(at now: Int64) -> (after: Int64, notAfter: Int64) {
        (now - lifetime, now + clockLeeway)
    }

    /// Whether a sign-in started at `started` may still finish at `now`.
    public static func isLive(started: Int64, now: Int64) -> Bool {
        let live = liveStarts(at: now)
        return live.after < started && started <= live.notAfter
    }

    /// Whether a person who signed in at the provider at `authenticated` proves it again at `now`.
    public static func isFreshReauthentication(_ authenticated: Int64, now: Int64) -> Bool {
        now - authenticated <= reauthenticationLifetime && authenticated - now <= clockLeeway
    }
}

/// Login attempts (`POST /api/auth/login`, issue 15): a guesser gets `maxFailuresPerUser` wrong
/// passwords for one name, and `maxFailuresPerAddress` for any names from one address, within
/// `windowSeconds`; past that the server answers 429 with Retry-After (when the oldest counted
/// failure leaves the window) and does not check the password at all. Five per user keeps an
/// online guess of a modest password hopeless while a person who mistypes twice is never stopped;
/// twenty per address lets a household behind one NAT mistype, not a script try names. Names that
/// do not exist are counted the same way, so the limit tells nobody which names do.
public enum LoginThrottle {
    public static let maxFailuresPerUser = 5
    public static let maxFailuresPerAddress = 20
    public static let windowSeconds: Int64 = 15 * 60
}

/// How long a poller holds a channel it claimed (`PollStore`): however many processes poll one
/// library (workers, the daemon, the server, a cron `sync`), a channel is claimed before it is
/// fetched and released when its poll is stored. A claim not finished within its lease expires
/// and another poller may take the channel, so a poller that died (SIGKILL, a lost machine)
/// blocks nothing for long. The lease outlasts the slowest poll allowed (a fetch's 60 s total
/// timeout, with room to store it; a shorter one would let a second poller fetch a feed the
/// first is still fetching) and any clock skew between the machines whose workers share a
/// library. Every poller takes `standard`.
public struct PollLease: Sendable, Equatable, CustomStringConvertible {
    public let seconds: Int64

    public static let standard = PollLease(uncheckedSeconds: 600)

    /// Any positive length. Outside `standard`, for tests only (`FEEDCTL_TEST_POLL_LEASE`): a
    /// lease shorter than a fetch may last lets a test see a killed worker's claims expire.
    package init(uncheckedSeconds seconds: Int64) {
        self.seconds = max(1, seconds)
    }

    /// When a claim taken at `now` expires.
    public func expiry(from now: Int64) -> Int64 { now + seconds }

    public var description: String { "\(seconds) s" }
}

/// How a sync worker (`feedctl worker`) works through the due channels: it claims at most
/// `batch` of them at a time, and when none is due sleeps until the next one falls due, but
/// never longer than `maxIdleSeconds` (a channel subscribed meanwhile is due at once) nor
/// shorter than `minIdleSeconds` (a clock step or a claim lapsing now cannot make it spin).
public enum PollWorkerRule {
    public static let batches: ClosedRange<Int> = 1...1_000
    public static let defaultBatch = 50
    /// Fetches running at once (the fetcher's concurrency; slow transfers step aside, `FetchLimits`).
    public static let concurrencies: ClosedRange<Int> = 1...256
    public static let defaultConcurrency = 12
    public static let maxIdleSeconds: Int64 = 60
    public static let minIdleSeconds: Int64 = 1

    /// Seconds to sleep at `now` when the next channel falls due at `nextDue` (nil: none is
    /// followed yet).
    public static func idleSeconds(now: Int64, nextDue: Int64?) -> Int64 {
        guard let nextDue else { return maxIdleSeconds }
        return min(maxIdleSeconds, max(minIdleSeconds, nextDue - now))
    }
}

/// Passwords (issue 15): hashed with bcrypt at `bcryptCost` (2^12 rounds: slow for
/// a guesser, bearable for a login). bcrypt reads at most 72 bytes, so a longer password is
/// refused rather than silently cut; shorter than `minLength` characters is refused too.
public enum PasswordRule {
    public static let minLength = 8
    public static let maxBytes = 72
    public static let bcryptCost: UInt8 = 12
}

/// Discovery (`feedctl discover`, `/api/discover/search`): every provider is asked at once, and
/// each has its own `timeout` (the backend's 10 s) and body cap, so one slow or huge answer
/// costs the others nothing: a provider past its timeout is named as failed and the results of
/// the others are shown. `defaultPerProvider` results per provider unless asked (1 to
/// `maxPerProvider`, the backend's `max_per_platform` bounds).
public enum DiscoveryRule {
    public static let timeout = 10.0
    public static let maxBytes = 5 * 1024 * 1024
    public static let defaultPerProvider = 10
    public static let maxPerProvider = 50
    /// The backend's `SearchRequest.query` bounds.
    public static let maxQueryBytes = 500
}

/// The discovery feed mode: what you follow but have forgotten. Only items never started
/// (no progress, not watched) of channels you follow; the channels you have played least come
/// first (their items' plays in your history, fewest first; ties by channel id), and the page
/// takes one item per channel in turn, each channel's newest first, so one prolific channel
/// cannot fill it and a channel you never play surfaces at the top.
public enum DiscoveryMode {
    /// An item counts as started once it has this much progress (seconds) or is watched.
    public static let startedAfterSeconds = 0
}

/// gpodder.net sync (issue 15), what AntennaPod, gPodder and Kasts speak. Device ids are what
/// gpodder.net accepts (letters, digits, `.`, `_`, `-`; at most `maxDeviceIDBytes`). A play
/// action counts as the episode heard by `WatchRule`, with the action's `total` (else the
/// item's duration) as the length. HTTP Basic is checked on every call: a name and password
/// that passed bcrypt are remembered for `basicCacheSeconds` (keyed by their hash and the stored
/// hash, so a new password takes effect at once) instead of paying bcrypt per request. Failed
/// sign-ins count against `LoginThrottle`, with the server's logins.
public enum SyncRule {
    public static let maxDeviceIDBytes = 64
    public static let basicCacheSeconds: Int64 = 300

    /// `id` when gpodder.net would accept it as a device id, else nil.
    public static func validDeviceID(_ id: String) -> String? {
        guard !id.isEmpty, id.utf8.count <= maxDeviceIDBytes,
              id.utf8.allSatisfy({ $0.isASCIIAlphanumeric || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") })
        else { return nil }
        return id
    }
}

extension UInt8 {
    fileprivate var isASCIIAlphanumeric: Bool {
        (0x30...0x39).contains(self) || (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self)
    }
}

/// The per-user event stream (`GET /api/events`, issue 27). Every change to a person's state,
/// by any process on the library, is a row of the library's change log (written by the store's
/// triggers); while anyone listens the server reads the log when a change commits (PostgreSQL
/// tells it) or every `pollMilliseconds` (SQLite), and fans it out. The log keeps about the newest `kept` changes of all users together: every
/// `pruneEvery`-th change deletes those older than `kept` (so `kept` to `kept + pruneEvery`
/// rows). A stream resuming (`Last-Event-ID`) from before what is kept is told to start over
/// (`event: reset`). The migration's trigger spells these two; changing them needs a migration.
public enum ChangeFeedRule {
    public static let kept: Int64 = 10_000
    public static let pruneEvery: Int64 = 1_000
    /// How often the server reads the log while a stream is open, on an engine that cannot tell
    /// it of a change (SQLite): a change reaches every stream within about this (and always
    /// within a second). PostgreSQL's LISTEN/NOTIFY wakes the reader as the change commits.
    public static let pollMilliseconds = 250
    /// Changes read from the log at once.
    public static let batch = 500
    /// Messages a stream holds for a client that has not read them yet: one further behind is
    /// ended (its browser reconnects and resumes from the log), and a resume that missed more
    /// of its user's changes than this is a reset.
    public static let streamBuffer = 1_000
    /// Seconds between `: keepalive` comments (proxies keep the stream; a client that left is noticed).
    public static let keepaliveSeconds = 15
    /// Streams one user may keep open (tabs, phones); past it, 429.
    public static let streamsPerUser = 16
    /// Streams the server keeps open in all; past it, 503.
    public static let streams = 1_024
}
