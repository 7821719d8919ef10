import ControlProtocol
import ControlSocket
import Foundation

/// The daemon's remote: player commands over the control socket, as the CLI sends them. The
/// socket client blocks, so each call runs on a thread of its own, never on the server's
/// event loops or the concurrency pool (a slow daemon must not stall other requests).
struct PlayerRemote: Sendable {
    let socketPath: String
    /// The library the daemon is started with when a command starts it (as `feedctl play` does).
    let database: String?

    /// Sends `command`; with `autostart`, starts the daemon when none runs. 503 when it is not
    /// running (or cannot be reached), with the client's one line.
    func perform(_ command: PlayerCommand, autostart: Bool) async throws(APIError) -> PlayerReply {
        let (socketPath, database) = (self.socketPath, self.database)
        let result: Result<PlayerReply, APIError> = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                do {
                    let client = try ControlClient.connect(socketPath: socketPath, database: database, autostart: autostart)
                    defer { client.connection.close() }
                    continuation.resume(returning: .success(try client.perform(command)))
                } catch {
                    continuation.resume(returning: .failure(APIError(.serviceUnavailable, "\(error)")))
                }
            }
        }
        return try result.get()
    }

    /// A subscription: `onEvent` is called on the subscription's own thread for each event
    /// until it returns false or the daemon goes away; `onEnd` once, after.
    func subscribe(onEvent: @escaping @Sendable (PlayerEvent) -> Bool, onEnd: @escaping @Sendable (String?) -> Void) -> Subscription {
        let subscription = Subscription()
        let socketPath = self.socketPath
        Thread.detachNewThread {
            do {
                let client = try ControlClient.connect(socketPath: socketPath, database: nil, autostart: false)
                guard subscription.attach(client.connection) else { client.connection.close(); onEnd(nil); return }
                let reply = try client.perform(.subscribe)
                if let status = reply.status, !onEvent(PlayerEvent(event: .status, status: status)) {
                    subscription.cancel(); onEnd(nil); return
                }
                while let event = try client.nextEvent() {
                    if !onEvent(event) { break }
                }
                subscription.cancel()
                onEnd(nil)
            } catch {
                subscription.cancel()
                onEnd(subscription.isCancelled ? nil : "\(error)")
            }
        }
        return subscription
    }

    /// Ends a subscription from another thread: shutting its connection down wakes its blocked
    /// read; the subscription's thread then closes it.
    final class Subscription: @unchecked Sendable {
        private let lock = NSLock()
        private var connection: LineConnection?
        private var cancelled = false

        var isCancelled: Bool { lock.lock(); defer { lock.unlock() }; return cancelled }

        /// False when it was cancelled before the connection existed.
        fileprivate func attach(_ connection: LineConnection) -> Bool {
            lock.lock(); defer { lock.unlock() }
            guard !cancelled else { return false }
            self.connection = connection
            return true
        }

        func cancel() {
            lock.lock()
            let connection = cancelled ? nil : self.connection
            cancelled = true
            lock.unlock()
            connection?.shutdown()
        }
    }
}
