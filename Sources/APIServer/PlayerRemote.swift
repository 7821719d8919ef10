import ControlProtocol
import ControlSocket
import FeedModel
import Foundation
import Hummingbird
import LibraryStore
import NIOCore
import NIOPosix
import Synchronization

/// The daemon's remote for `/api/player`: commands over its control socket as the CLI sends them,
/// on the server's event loops (`DaemonSocket`), and one subscription fanned out to every event
/// stream (`PlayerEventHub`). The daemon serves few clients at once (`ControlServer.maxClients`),
/// so the server takes at most `PlayerRemoteLimits.requests` of them for commands and one for
/// events, and the CLI always finds room.
final class PlayerRemote: Sendable {
    /// How long a command may take the daemon (a play opens its media first).
    static let replyTimeout: TimeAmount = .seconds(Int64(ControlClient.replyTimeout))

    let socket: DaemonSocket
    let events: PlayerEventHub
    private let requests = Mutex(0)
    /// Starts the daemon with the server's library and media directory when a command may start
    /// it (as `feedctl play` does).
    private let starter: DaemonStarter

    init(socketPath: String, database: String?, mediaDirectory: String?, streams: PlayerStreamLimits = PlayerStreamLimits(),
         group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        socket = DaemonSocket(path: socketPath, group: group)
        events = PlayerEventHub(socket: socket, limits: streams)
        starter = DaemonStarter(socketPath: socketPath, database: database, mediaDirectory: mediaDirectory)
    }

    /// Sends `command`; with `autostart`, starts the daemon when none runs. The daemon's refusal
    /// is its `PlayerFailure`, answered by kind (`APIError.init(_: PlayerFailure)`).
    func perform(_ command: PlayerCommand, autostart: Bool) async throws(APIError) -> PlayerReply {
        let limit = PlayerRemoteLimits.requests
        let admitted = requests.withLock { count in
            guard count < limit else { return false }
            count += 1
            return true
        }
        guard admitted else {
            throw APIError(.serviceUnavailable, "the player is busy: \(limit) commands are waiting for it; try again")
        }
        defer { requests.withLock { $0 -= 1 } }
        do {
            return try await socket.request(command, timeout: Self.replyTimeout)
        } catch .notRunning where autostart {
            try await starter.start()
        } catch {
            throw APIError(error)
        }
        do {
            return try await socket.request(command, timeout: Self.replyTimeout)
        } catch {
            throw APIError(error)
        }
    }
}

/// Starts the daemon for a command that may (`play`, `resume`, `queue`), as `feedctl play` does,
/// one start at a time: the start waits for the daemon to answer (up to 5 s), so it runs on
/// NIO's shared thread pool, never on an event loop.
actor DaemonStarter {
    let socketPath: String
    let database: String?
    let mediaDirectory: String?
    private var starting: Task<Result<Void, APIError>, Never>?

    init(socketPath: String, database: String?, mediaDirectory: String?) {
        self.socketPath = socketPath; self.database = database; self.mediaDirectory = mediaDirectory
    }

    func start() async throws(APIError) {
        let task: Task<Result<Void, APIError>, Never>
        if let starting {
            task = starting
        } else {
            let (path, database, media) = (socketPath, database, mediaDirectory)
            task = Task {
                do {
                    try await NIOThreadPool.singleton.runIfActive {
                        // Connects when another start won the race; starts the daemon otherwise.
                        let client = try ControlClient.connect(socketPath: path, database: database, mediaDirectory: media, autostart: true)
                        client.connection.close()
                    }
                    return .success(())
                } catch {
                    return .failure(APIError(.serviceUnavailable, "cannot start the player: \(error)"))
                }
            }
            starting = task
        }
        let result = await task.value
        starting = nil
        try result.get()
    }
}

extension APIError {
    /// A daemon's refusal, by its kind (never by its text).
    init(_ failure: PlayerFailure) {
        let status: HTTPResponse.Status = switch failure.kind {
        case .invalid, .cannotPlay: .unprocessableContent
        case .notFound: .notFound
        case .notNow: .conflict
        case .unavailable: .serviceUnavailable
        case .failed: .internalServerError
        }
        self.init(status, failure.description)
    }

    init(_ failure: DaemonSocket.Failure) {
        switch failure {
        case .notRunning:
            self.init(.serviceUnavailable, "the player is not running (nothing is playing); POST /api/player/play starts it")
        case .refused(let failure):
            self.init(failure)
        }
    }
}
