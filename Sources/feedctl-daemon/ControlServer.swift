import FeedctlControl
import Foundation

/// What the daemon does with requests; the server only moves lines.
protocol ControlHandler: Sendable {
    func handle(_ request: ControlRequest) async -> ControlResponse
    /// A fresh stream of events for one subscriber.
    func events() async -> AsyncStream<ControlEvent>
}

/// Accepts connections on the private Unix socket and serves each on its own thread:
/// a line in, a response out; `subscribe` additionally streams events to that connection.
/// A malformed line gets an error response; nothing a client sends can stop the daemon.
final class ControlServer: @unchecked Sendable {
    private let listener: UnixListener
    private let handler: ControlHandler
    private let onQuit: @Sendable () -> Void

    /// `onQuit` runs once a `quit` request succeeded and its response is on its way.
    init(listener: UnixListener, handler: ControlHandler, onQuit: @escaping @Sendable () -> Void) {
        self.listener = listener
        self.handler = handler
        self.onQuit = onQuit
    }

    /// Starts the accept loop on a background thread.
    func start() {
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

    func stop() { listener.close() }

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
                let reply = ControlResponse(ok: false, error: String(describing: error))
                if let data = try? encoder.encode(reply) { connection.writeLine(Array(data)) }
                return
            }
            if line.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 13 }) { continue }
            let response: ControlResponse
            let request: ControlRequest
            do {
                request = try JSONDecoder().decode(ControlRequest.self, from: Data(line))
            } catch {
                response = ControlResponse(ok: false, error: "malformed request: expected one JSON object per line with a \"cmd\"")
                if let data = try? encoder.encode(response) { connection.writeLine(Array(data)) }
                continue
            }
            response = blockingAwait { await self.handler.handle(request) }
            let quitting = request.cmd == "quit" && response.ok
            // Stop listening before answering: once `feedctl quit` returns, the socket is gone and a
            // new daemon can start on it.
            if quitting { stop() }
            let sent = (try? encoder.encode(response)).map { connection.writeLine(Array($0)) } ?? false
            if quitting { onQuit(); return }
            guard sent else { return }
            if request.cmd == "subscribe" && response.ok && subscription == nil {
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
