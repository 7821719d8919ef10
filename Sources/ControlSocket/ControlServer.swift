import ControlProtocol
import Foundation

/// Accepts connections on the private Unix socket and serves each on its own thread: a line
/// in, decoded once into a `PlayerCommand` (here, at the edge), carried out by the player
/// service, a reply out; `subscribe` additionally streams events to that connection. A
/// malformed line gets an error reply; nothing a client sends can stop the daemon.
public final class ControlServer: @unchecked Sendable {
    private let listener: UnixListener
    private let handler: any PlayerControl
    private let onQuit: @Sendable () -> Void

    /// `onQuit` runs once a `quit` request succeeded and its response is on its way.
    public init(listener: UnixListener, handler: any PlayerControl, onQuit: @escaping @Sendable () -> Void) {
        self.listener = listener
        self.handler = handler
        self.onQuit = onQuit
    }

    /// Starts the accept loop on a background thread.
    public func start() {
        let thread = Thread { [self] in
            while let connection = listener.accept() {
                let worker = Thread { [self] in serve(connection) }
                worker.name = "feedctl-control-conn"
                worker.start()
            }
        }
        thread.name = "feedctl-control-accept"
        thread.start()
    }

    public func stop() { listener.close() }

    private func serve(_ connection: LineConnection) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        var subscription: Task<Void, Never>?
        defer { subscription?.cancel(); connection.close() }
        while true {
            let line: [UInt8]
            do {
                guard let next = try connection.readLine() else { return }
                line = next
            } catch {
                let reply = PlayerReply.failure(String(describing: error))
                if let data = try? encoder.encode(reply) { connection.writeLine(Array(data)) }
                return
            }
            if line.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 13 }) { continue }
            let request: ControlRequest
            do {
                request = try JSONDecoder().decode(ControlRequest.self, from: Data(line))
            } catch {
                let reply = PlayerReply.failure("malformed request: expected one JSON object per line with a \"cmd\"")
                if let data = try? encoder.encode(reply) { connection.writeLine(Array(data)) }
                continue
            }
            let reply: PlayerReply
            let command: PlayerCommand?
            do {
                let decoded = try request.command()
                command = decoded
                var performed = blockingAwait { await self.handler.perform(decoded) }
                performed.id = request.id
                reply = performed
            } catch {
                command = nil
                reply = .failure(error.description, id: request.id, status: blockingAwait { await self.handler.perform(.status) }.status)
            }
            let quitting = command == .quit && reply.ok
            // Stop listening before answering: once `feedctl quit` returns, the socket is gone and a
            // new daemon can start on it.
            if quitting { stop() }
            let sent = (try? encoder.encode(reply)).map { connection.writeLine(Array($0)) } ?? false
            if quitting { onQuit(); return }
            guard sent else { return }
            if command == .subscribe && reply.ok && subscription == nil {
                let handler = self.handler
                subscription = Task.detached {
                    let stream = await handler.events()
                    for await event in stream {
                        guard let data = try? encoder.encode(event), connection.writeLine(Array(data)) else { break }
                    }
                }
            }
        }
    }
}

/// Runs async work from a dedicated (non-cooperative) thread and waits for its result.
func blockingAwait<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> T {
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        box.value = await work()
        done.signal()
    }
    done.wait()
    return box.value!
}

private final class ResultBox<T>: @unchecked Sendable {
    var value: T?
}
