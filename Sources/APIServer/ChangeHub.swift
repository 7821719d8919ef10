import FeedModel
import LibraryStore
import NIOCore

/// Every `/api/events` stream, fed by one reader of the library's change log (`ChangeFeed`):
/// one task for the whole server, reading the log while any stream is open (it starts with the
/// first and stops with the last) whenever the feed says a change may be there
/// (`waitForChange`: as it commits on an engine that is told, PostgreSQL; every
/// `ChangeFeedRule.pollMilliseconds` on one that polls, SQLite), each change sent to its user's
/// streams only, and a keepalive to all of them now and then. A stream that resumes
/// (`Last-Event-ID`) first gets its user's changes since, read from the log, or a reset when
/// those were pruned. Streams are bounded per user and in all (`ChangeStreamSettings`). A
/// removed user's streams end: at once when this server removed them (`end`), else at the next
/// keepalive, which looks whether each streaming user is still there (the CLI, another replica).
/// So does a stream whose login session ended (signed out, revoked, its password changed,
/// expired), wherever that happened: a stream is private, and needs a valid session throughout.
actor ChangeHub {
    /// What a stream carries.
    enum Message: Sendable, Equatable {
        /// Where the stream starts in the log (its first line: a reconnect resumes from there).
        case position(Int64)
        case change(Change)
        /// What the client missed is gone from the log: it reloads what it shows.
        case reset(latest: Int64)
        case keepalive
    }

    /// Where a new stream starts.
    enum Resume: Sendable, Equatable {
        /// With what happens next (no `Last-Event-ID`).
        case now
        /// After change `seq` (the `Last-Event-ID` the client was last given).
        case after(Int64)
        /// After something that is no change of this log (a `Last-Event-ID` that is no number): a reset.
        case unknown
    }

    private struct Stream {
        let user: UserID
        /// The login session that opened it (nil: none, under `--open`).
        let session: Int64?
        /// Changes up to this one the stream has (from its resume), so live ones start after it.
        let from: Int64
        let continuation: AsyncStream<Message>.Continuation
    }

    private let feed: any ChangeFeed
    /// The library's users (nil: a server without users, whose one user cannot be removed).
    private let users: (any UserStore)?
    private let settings: ChangeStreamSettings
    private let log: @Sendable (String) -> Void
    /// The server's clock (Unix seconds): when sessions expire.
    private let now: @Sendable () -> Int64
    private var streams: [UserID: [UInt64: Stream]] = [:]
    private var count = 0
    private var nextID: UInt64 = 0
    /// The last change of the log the reader has handed out.
    private var cursor: Int64 = 0
    private var reader: Task<Void, Never>?
    /// Whether the reader's last read failed (said once in the log, not at every look).
    private var failing = false

    init(feed: any ChangeFeed, users: (any UserStore)? = nil, settings: ChangeStreamSettings,
         now: @escaping @Sendable () -> Int64 = { Clock.now() }, log: @escaping @Sendable (String) -> Void) {
        self.feed = feed; self.users = users; self.settings = settings; self.now = now; self.log = log
    }

    /// A new stream of `user`'s changes; throws past a bound, or when the log cannot be read.
    /// `session`: the login session opening it (it ends with it).
    func open(for user: UserID, session: Int64? = nil, resume: Resume) async throws(APIError)
        -> (id: UInt64, messages: AsyncStream<Message>, continuation: AsyncStream<Message>.Continuation) {
        try checkBounds(for: user)
        if reader == nil {
            let latest = try await read { feed throws(LibraryError) in try await feed.latestChange() }
            // Another stream may have started it meanwhile, from a later point.
            if reader == nil { cursor = latest; startReading() }
        }
        let first: [Message], from: Int64
        do {
            (first, from) = try await backlog(for: user, resume: resume)
            // Others may have opened streams meanwhile; nothing suspends from here on.
            try checkBounds(for: user)
        } catch {
            stopIfIdle()   // a reader started for this stream alone
            throw error
        }
        let (messages, continuation) = AsyncStream.makeStream(of: Message.self,
                                                              bufferingPolicy: .bufferingOldest(ChangeFeedRule.streamBuffer))
        nextID += 1
        let id = nextID
        streams[user, default: [:]][id] = Stream(user: user, session: session, from: from, continuation: continuation)
        count += 1
        for message in first { continuation.yield(message) }
        continuation.onTermination = { [weak self] _ in
            Task { await self?.close(id, of: user) }
        }
        // The last other stream may have closed while this one read its backlog.
        if reader == nil { startReading() }
        return (id, messages, continuation)
    }

    /// Ends a stream (its client left, or the server stops); the reader stops with the last one.
    func close(_ id: UInt64, of user: UserID) {
        guard let stream = streams[user]?.removeValue(forKey: id) else { return }
        if streams[user]?.isEmpty == true { streams[user] = nil }
        count -= 1
        stream.continuation.finish()
        stopIfIdle()
    }

    /// Ends every stream of `user`, whose account is gone: their clients see the stream end
    /// (cleanly), and reconnecting gets 401.
    func end(_ user: UserID) {
        for id in streams[user]?.keys.sorted() ?? [] { close(id, of: user) }
    }

    /// Ends the streams login session `session` of `user` opened (it ended on this server).
    func end(session: Int64, of user: UserID) {
        for (id, stream) in streams[user] ?? [:] where stream.session == session { close(id, of: user) }
    }

    /// Ends the streams of users the library no longer has (removed by another process), and
    /// those whose session is over (ended anywhere, or expired).
    private func endRemovedUsersAndSessions() async {
        guard let users, !streams.isEmpty else { return }
        // A library that cannot be read now ends nobody's stream: the next keepalive looks again.
        guard let present = try? await users.users() else { return }
        let ids = Set(present.map(\.id))
        for user in Array(streams.keys) where !ids.contains(user) { end(user) }
        let now = now()
        for user in Array(streams.keys) where streams[user]?.values.contains(where: { $0.session != nil }) == true {
            guard let live = try? await users.sessions(of: user) else { continue }
            let valid = Set(live.filter { $0.expiresAt > now }.map(\.id))
            for (id, stream) in streams[user] ?? [:] where stream.session.map({ !valid.contains($0) }) == true { close(id, of: user) }
        }
    }

    private func stopIfIdle() {
        guard count == 0 else { return }
        reader?.cancel()
        reader = nil
    }

    /// Whether the log is being read (tests: only while a stream is open).
    var isReading: Bool { reader != nil }

    private func checkBounds(for user: UserID) throws(APIError) {
        guard count < settings.total else {
            throw APIError(.serviceUnavailable, "the server holds \(settings.total) event streams, its most; try again when some have closed")
        }
        guard streams[user, default: [:]].count < settings.perUser else {
            throw APIError(.tooManyRequests, "you have \(settings.perUser) event streams open, the most one user may; close one (a tab or a device) first")
        }
    }

    /// What a stream says first, and the last change of the log it covers: where it stands; or
    /// `user`'s changes since `resume` (read up to where the reader is, or further); or a reset
    /// when those are gone or more than a stream holds.
    private func backlog(for user: UserID, resume: Resume) async throws(APIError) -> (messages: [Message], from: Int64) {
        let seq: Int64
        switch resume {
        case .now: return ([.position(cursor)], cursor)
        case .unknown: return ([.reset(latest: cursor)], cursor)
        case .after(let after): seq = after
        }
        var missed: [Message] = [], from = seq
        repeat {
            let after = from
            switch try await read({ feed throws(LibraryError) in try await feed.changes(after: after, limit: ChangeFeedRule.batch) }) {
            case .gone(let latest):
                return ([.reset(latest: max(latest, cursor))], max(latest, cursor))
            case .changes(let changes):
                guard let last = changes.last else { return (missed + [.position(from)], from) }
                missed += changes.filter { $0.user == user }.map { Message.change($0) }
                from = last.seq
                if missed.count >= ChangeFeedRule.streamBuffer { return ([.reset(latest: max(from, cursor))], max(from, cursor)) }
            }
        } while from < cursor
        // Then where that leaves it (past other users' changes, which a reconnect need not read again).
        return (missed + [.position(from)], from)
    }

    private func read<T: Sendable>(_ body: @Sendable (any ChangeFeed) async throws(LibraryError) -> T) async throws(APIError) -> T {
        do {
            return try await body(feed)
        } catch {
            throw APIError(error)
        }
    }

    private func startReading() {
        let poll = settings.pollInterval, keepalive = settings.keepalive
        reader = Task { [weak self] in
            let clock = ContinuousClock()
            var lastKeepalive = clock.now
            while !Task.isCancelled {
                guard let feed = self?.feed, let after = await self?.cursor else { return }
                // Until the next keepalive at the latest: an engine that is told of changes
                // needs no other wake-up.
                await feed.waitForChange(after: after, poll: poll, timeout: max(.zero, keepalive - (clock.now - lastKeepalive)))
                guard !Task.isCancelled, let self else { return }
                await self.readChanges()
                if clock.now - lastKeepalive >= keepalive {
                    lastKeepalive = clock.now
                    await self.endRemovedUsersAndSessions()
                    await self.broadcast(.keepalive)
                }
            }
        }
    }

    /// One look at the log: everything after the cursor, to whom it belongs.
    private func readChanges() async {
        while true {
            let after = cursor
            let batch: ChangeBatch
            do {
                batch = try await feed.changes(after: after, limit: ChangeFeedRule.batch)
            } catch {
                if !failing { log("event streams: cannot read the library's change log: \(error.descriptionWithoutPaths)") }
                failing = true
                return
            }
            failing = false
            // A stream opened meanwhile has its backlog up to at least `after`; `from` keeps it from repeats.
            switch batch {
            case .gone(let latest):
                // More changed in one look than the log keeps, or the library was replaced.
                cursor = max(latest, cursor)
                broadcast(.reset(latest: cursor))
                return
            case .changes(let changes):
                for change in changes {
                    for (id, stream) in streams[change.user] ?? [:] where change.seq > stream.from {
                        deliver(.change(change), to: stream, id: id)
                    }
                }
                cursor = max(cursor, changes.last?.seq ?? cursor)
                if changes.count < ChangeFeedRule.batch { return }
            }
        }
    }

    private func broadcast(_ message: Message) {
        for (id, stream) in streams.values.joined() { deliver(message, to: stream, id: id) }
    }

    /// A client that does not read what it is sent is let go once its stream holds
    /// `streamBuffer` messages: its browser reconnects and resumes from the log.
    private func deliver(_ message: Message, to stream: Stream, id: UInt64) {
        if case .dropped = stream.continuation.yield(message) { close(id, of: stream.user) }
    }
}

/// How the server serves `/api/events`: how many streams per user and in all, how often it
/// reads the change log when the engine cannot say when it changed (`pollInterval`, see
/// `ChangeFeed.waitForChange`) and says it is still there (`ChangeFeedRule`; tests shorten
/// the times).
public struct ChangeStreamSettings: Sendable {
    public var perUser: Int
    public var total: Int
    public var pollInterval: Duration
    public var keepalive: Duration

    public init(perUser: Int = ChangeFeedRule.streamsPerUser, total: Int = ChangeFeedRule.streams,
                pollInterval: Duration = .milliseconds(ChangeFeedRule.pollMilliseconds),
                keepalive: Duration = .seconds(ChangeFeedRule.keepaliveSeconds)) {
        self.perUser = perUser; self.total = total; self.pollInterval = pollInterval; self.keepalive = keepalive
    }
}
