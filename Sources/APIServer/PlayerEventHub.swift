import ControlProtocol
import FeedModel
import Foundation
import LibraryStore
import NIOCore

/// Every `/api/player/events` stream, fed from one subscription on one connection to the daemon
/// (whose client slots are few: 64 streams used to take them all). The connection opens with
/// the first stream and closes with the last; each stream gets the current status first, then
/// the daemon's events, a comment line now and then (so a client that left is noticed, and
/// proxies keep the stream), and a last message when the daemon goes away. Streams are bounded
/// per user and in all (`PlayerStreamLimits`).
actor PlayerEventHub {
    /// What a stream carries.
    enum Message: Sendable {
        case event(PlayerEvent)
        /// Nothing happened for a while (an SSE comment).
        case heartbeat
        /// The daemon went away: the stream ends with this line.
        case ended(String)
    }

    /// Seconds between heartbeats.
    static let heartbeatInterval: TimeAmount = .seconds(15)

    private let socket: DaemonSocket
    private let limits: PlayerStreamLimits
    private var streams: [UInt64: (user: UserID, continuation: AsyncStream<Message>.Continuation)] = [:]
    private var nextID: UInt64 = 0
    private var latest: PlayerStatus?
    /// The subscription's connection while it is open.
    private var connection: DaemonSocket.Connection?
    /// A connection being made (only one at a time, whoever asks).
    private var connecting: Task<Result<PlayerStatus, DaemonSocket.Failure>, Never>?
    private var heartbeat: Task<Void, Never>?

    init(socket: DaemonSocket, limits: PlayerStreamLimits) {
        self.socket = socket
        self.limits = limits
    }

    /// A new stream for `user`; throws when past a bound, or when the daemon cannot be reached
    /// (nothing is answered as an empty stream).
    func open(for user: UserID) async throws(APIError) -> (id: UInt64, messages: AsyncStream<Message>) {
        try checkBounds(for: user)
        let status = try await subscription()
        // The daemon may have gone while this one waited, and others may have opened streams.
        guard connection != nil else { throw APIError(.serviceUnavailable, "the feedctl daemon went away; try again") }
        try checkBounds(for: user)
        let (stream, continuation) = AsyncStream.makeStream(of: Message.self, bufferingPolicy: .bufferingNewest(64))
        nextID += 1
        let id = nextID
        streams[id] = (user, continuation)
        continuation.yield(.event(PlayerEvent(event: .status, status: latest ?? status)))
        continuation.onTermination = { [weak self] _ in
            Task { await self?.close(id) }
        }
        return (id, stream)
    }

    /// Ends a stream (its client left); the daemon connection goes with the last one.
    func close(_ id: UInt64) {
        guard let stream = streams.removeValue(forKey: id) else { return }
        stream.continuation.finish()
        if streams.isEmpty, connecting == nil { disconnect() }
    }

    /// Lets the daemon's connection go: the next stream makes a new one.
    private func disconnect() {
        connection?.channel.close(promise: nil)
        connection = nil
        latest = nil
        heartbeat?.cancel()
        heartbeat = nil
    }

    var count: Int { streams.count }

    private func checkBounds(for user: UserID) throws(APIError) {
        guard streams.count < limits.total else {
            throw APIError(.serviceUnavailable, "the server holds \(limits.total) player event streams, its most; try again when some have closed")
        }
        let mine = streams.values.reduce(0) { $0 + ($1.user == user ? 1 : 0) }
        guard mine < limits.perUser else {
            throw APIError(.tooManyRequests, "you have \(limits.perUser) player event streams open, the most one user may; close one first")
        }
    }

    /// The subscription's current status, connecting (once, for everyone waiting) if needed.
    private func subscription() async throws(APIError) -> PlayerStatus {
        if connection != nil, let latest { return latest }
        let task: Task<Result<PlayerStatus, DaemonSocket.Failure>, Never>
        if let connecting {
            task = connecting
        } else {
            let socket = self.socket
            task = Task { await self.subscribe(socket) }
            connecting = task
        }
        let result = await task.value
        switch result {
        case .success(let status): return status
        case .failure(let failure): throw APIError(failure)
        }
    }

    /// Connects and subscribes; the connection's events are read by a task of their own until
    /// the daemon goes away or the last stream closes it.
    private func subscribe(_ socket: DaemonSocket) async -> Result<PlayerStatus, DaemonSocket.Failure> {
        defer { connecting = nil }
        let connection: DaemonSocket.Connection
        do {
            connection = try await socket.connect()
        } catch {
            return .failure(error)
        }
        let (ready, readyContinuation) = AsyncStream.makeStream(of: Result<PlayerStatus, DaemonSocket.Failure>.self)
        Task {
            try? await connection.executeThenClose { inbound, outbound in
                var lines = inbound.makeAsyncIterator()
                do throws(DaemonSocket.Failure) {
                    let reply = try await DaemonSocket.send(.subscribe, on: connection, timeout: PlayerRemote.replyTimeout,
                                                            lines: &lines, outbound: outbound)
                    readyContinuation.yield(.success(reply.status ?? PlayerStatus()))
                } catch {
                    readyContinuation.yield(.failure(error))
                    return
                }
                readyContinuation.finish()
                while let line = try? await lines.next() {
                    guard let event = try? JSONDecoder().decode(PlayerEvent.self, from: Data(line.readableBytesView)) else { continue }
                    self.publish(event)
                }
            }
            self.connectionEnded(connection)
        }
        var iterator = ready.makeAsyncIterator()
        let result = await iterator.next() ?? .failure(.refused(PlayerFailure(.unavailable, "the feedctl daemon closed the connection")))
        if case .success(let status) = result {
            self.connection = connection
            latest = status
            startHeartbeat()
        }
        return result
    }

    private func publish(_ event: PlayerEvent) {
        latest = event.status
        for stream in streams.values { stream.continuation.yield(.event(event)) }
    }

    private func connectionEnded(_ ended: DaemonSocket.Connection) {
        // One this hub let go of already (its last stream closed) ends no stream.
        guard let connection, connection.channel === ended.channel else { return }
        disconnect()
        let open = streams
        streams = [:]
        for stream in open.values {
            stream.continuation.yield(.ended("the feedctl daemon went away"))
            stream.continuation.finish()
        }
    }

    private func startHeartbeat() {
        heartbeat?.cancel()
        heartbeat = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: UInt64(Self.heartbeatInterval.nanoseconds))
                guard !Task.isCancelled else { return }
                await self?.beat()
            }
        }
    }

    private func beat() {
        for stream in streams.values { stream.continuation.yield(.heartbeat) }
    }
}

/// How many `/api/player/events` streams the server keeps open: per user and in all.
public struct PlayerStreamLimits: Sendable {
    public var perUser: Int
    public var total: Int

    public init(perUser: Int = PlayerRemoteLimits.streamsPerUser, total: Int = PlayerRemoteLimits.streams) {
        self.perUser = perUser; self.total = total
    }
}
