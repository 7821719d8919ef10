#if canImport(Glibc)
import Glibc
#endif
import ControlProtocol
import Foundation
import Synchronization

/// Serves the private Unix socket from one thread with `poll`: a line in, decoded once into a
/// `PlayerCommand` (here, at the edge), carried out by the player service, a reply out;
/// `subscribe` additionally streams events to that connection. A malformed line gets an error
/// reply; nothing a client sends, or fails to read, can stop the daemon:
/// - no thread per client (3,000 idle connections made 3,000 threads and 259 MB);
/// - every socket is non-blocking and each client's unsent output is bounded: a subscriber that
///   stops reading is disconnected once `maxPendingOutput` waits for it, instead of blocking a
///   shared worker (40 stuck subscribers froze the daemon);
/// - at most `maxClients` at once (mpd's `max_connections`); one more is told so and closed;
/// - running out of descriptors (EMFILE) on accept is survived: a spare descriptor is given up
///   to take the waiting connection and close it, so the backlog cannot spin the loop, and the
///   loop accepts again once clients leave (before, one EMFILE ended accepting for good).
public final class ControlServer: @unchecked Sendable {
    /// Clients served at once.
    public static let maxClients = 64
    /// Output a client may leave unread before it is disconnected.
    static let maxPendingOutput = 1 << 20

    private let listener: UnixListener
    private let handler: any PlayerControl
    private let onQuit: @Sendable () -> Void
    private let log: @Sendable (String) -> Void
    /// A pipe `wake` writes to, so that `poll` returns (eventfd and pipe2 are GNU names the
    /// Swift Glibc module does not import).
    private let wakeFD: Int32
    private let wakeWriteFD: Int32
    private let stopRequested = Atomic<Bool>(false)
    /// Held open to be given up when the process runs out of descriptors.
    private var spareFD: Int32 = -1
    private var listening = true
    private var clients: [Int32: ServedClient] = [:]

    /// `onQuit` runs once a `quit` request succeeded and its response was sent.
    public init(listener: UnixListener, handler: any PlayerControl, log: @escaping @Sendable (String) -> Void = { _ in },
                onQuit: @escaping @Sendable () -> Void) {
        self.listener = listener
        self.handler = handler
        self.onQuit = onQuit
        self.log = log
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for end in ends {
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
                _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            }
        }
        wakeFD = ends[0]
        wakeWriteFD = ends[1]
    }

    /// Starts serving on a thread of its own.
    public func start() {
        spareFD = open("/dev/null", O_RDONLY | O_CLOEXEC)
        let thread = Thread { [self] in run() }
        thread.name = "feedctl-control"
        thread.start()
    }

    /// Stops listening (the socket file goes at once); clients being answered are finished.
    public func stop() {
        stopRequested.store(true, ordering: .sequentiallyConsistent)
        wake()
    }

    /// Interrupts `poll`: a reply or event is waiting to be sent, or `stop` was called.
    func wake() {
        var one: UInt8 = 1
        _ = write(wakeWriteFD, &one, 1)   // a full pipe already wakes it
    }

    private func run() {
        while listening || !clients.isEmpty {
            closeListenerIfStopped()
            var fds = [pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)]
            if listening { fds.append(pollfd(fd: listener.descriptor, events: Int16(POLLIN), revents: 0)) }
            let served = Array(clients.values)
            for client in served {
                fds.append(pollfd(fd: client.fd, events: client.interest, revents: 0))
            }
            if poll(&fds, nfds_t(fds.count), -1) < 0, errno != EINTR {
                log("control: poll failed: \(String(cString: strerror(errno)))")
                usleep(100_000)
                continue
            }
            if fds[0].revents != 0 {
                var drained = [UInt8](repeating: 0, count: 256)
                while drained.withUnsafeMutableBytes({ read(wakeFD, $0.baseAddress, $0.count) }) > 0 {}
            }
            if listening, fds[1].revents != 0 { acceptWaiting() }
            let offset = listening ? 2 : 1
            for (index, client) in served.enumerated() {
                let events = fds[offset + index].revents
                if events & Int16(POLLIN | POLLHUP | POLLERR) != 0 { client.readAvailable() }
                closeListenerIfStopped()   // a quit's reply goes out only once the socket file is gone
                if events & Int16(POLLOUT) != 0 || client.hasOutput { client.flush() }
            }
            for client in served {
                // A few lines per turn: malformed ones are answered at once, a real request makes
                // the client busy until its reply is queued.
                var handled = 0
                while handled < 256, let line = client.nextLine() {
                    handle(line, from: client)
                    handled += 1
                }
                if client.finished { drop(client) }
            }
        }
        close(wakeFD)
        close(wakeWriteFD)
        if spareFD >= 0 { close(spareFD) }
    }

    private func closeListenerIfStopped() {
        guard listening, stopRequested.load(ordering: .sequentiallyConsistent) else { return }
        listening = false
        listener.close()
    }

    private func acceptWaiting() {
        while true {
            switch listener.acceptOne() {
            case .client(let fd):
                guard clients.count < Self.maxClients else {
                    let refusal = (try? JSONEncoder().encode(PlayerReply.failure(.tooManyClients(Self.maxClients)))) ?? Data()
                    _ = (Array(refusal) + [10]).withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    close(fd)
                    continue
                }
                clients[fd] = ServedClient(fd: fd, server: self)
            case .none:
                return
            case .outOfDescriptors:
                // Take the waiting connection with the spare descriptor and close it at once:
                // otherwise it stays in the backlog and poll reports it forever.
                if spareFD >= 0 { close(spareFD); spareFD = -1 }
                let fd = accept(listener.descriptor, nil, nil)
                if fd >= 0 { close(fd) }
                spareFD = open("/dev/null", O_RDONLY | O_CLOEXEC)
                log("control: out of file descriptors (\(clients.count) clients); refused a connection")
                return
            case .closed:
                listening = false
                return
            case .failed(let code):
                log("control: accept failed: \(String(cString: strerror(code)))")
                return
            }
        }
    }

    private func drop(_ client: ServedClient) {
        if client.stoppedReading {
            log("control: a client stopped reading (\(Self.maxPendingOutput >> 20) MiB of replies and events waiting); disconnected it")
        }
        client.close()
        clients[client.fd] = nil
    }

    // MARK: requests

    private func handle(_ line: [UInt8], from client: ServedClient) {
        let request: ControlRequest
        do {
            request = try JSONDecoder().decode(ControlRequest.self, from: Data(line))
        } catch {
            client.send(.failure(PlayerFailure(.invalid, "malformed request: expected one JSON object per line with a \"cmd\"")))
            return
        }
        client.busy = true
        let handler = self.handler
        Task.detached { [self] in
            let reply: PlayerReply
            let command: PlayerCommand?
            do throws(ProtocolError) {
                let decoded = try request.command()
                command = decoded
                var performed = await handler.perform(decoded)
                performed.id = request.id
                reply = performed
            } catch {
                command = nil
                reply = .failure(error.failure, id: request.id, status: await handler.perform(.status).status)
            }
            if command == .quit && reply.ok {
                // Stop listening before answering: once `feedctl quit` returns, the socket is gone
                // and a new daemon can start on it.
                stop()
                client.send(reply, then: onQuit)
            } else {
                client.send(reply)
                if command == .subscribe && reply.ok { client.subscribe(to: handler) }
            }
            client.busy = false
            wake()
        }
    }
}

/// One connection: what it sent and has not been handled, what it has not yet read, and its
/// event subscription. Input is touched only by the server's thread; output is appended from
/// tasks (replies, events) under a lock and written by the server's thread.
final class ServedClient: @unchecked Sendable {
    let fd: Int32
    private weak var server: ControlServer?
    /// What was read; lines before `inputStart` were taken already (compacted now and then, so
    /// taking a line never moves the whole buffer).
    private var input: [UInt8] = []
    private var inputStart = 0
    private var unread: Int { input.count - inputStart }
    private var peerClosed = false
    private var failed = false
    private let lock = NSLock()
    private var output: [UInt8] = []
    private var afterFlush: [@Sendable () -> Void] = []
    private var overflowed = false
    /// Dropped because it left `maxPendingOutput` unread.
    private(set) var stoppedReading = false
    private var isBusy = false
    private var subscription: Task<Void, Never>?
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }()

    init(fd: Int32, server: ControlServer) { self.fd = fd; self.server = server }

    /// A request is being carried out: the next one waits (replies stay in order), and nothing
    /// more is read meanwhile.
    var busy: Bool {
        get { lock.withLock { isBusy } }
        set { lock.withLock { isBusy = newValue } }
    }

    var hasOutput: Bool { lock.withLock { !output.isEmpty } }

    var interest: Int16 {
        var events: Int16 = 0
        if !busy && !peerClosed && !failed { events |= Int16(POLLIN) }
        if hasOutput { events |= Int16(POLLOUT) }
        return events
    }

    /// Done with: the peer left (and nothing is pending for it), an error, or it stopped reading.
    var finished: Bool {
        lock.withLock { failed || overflowed || (peerClosed && !isBusy && output.isEmpty && unread == 0) }
    }

    func readAvailable() {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while !busy && unread <= LineConnection.maxLine {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n > 0 { input.append(contentsOf: chunk[..<n]); continue }
            if n == 0 { peerClosed = true; return }
            if errno == EINTR { continue }
            if errno != EAGAIN && errno != EWOULDBLOCK { failed = true }
            return
        }
    }

    /// The next complete, non-blank request line, when none is being carried out.
    func nextLine() -> [UInt8]? {
        while !busy, let newline = input[inputStart...].firstIndex(of: 10) {
            let line = Array(input[inputStart..<newline])
            inputStart = newline + 1
            if inputStart == input.count {
                input.removeAll(keepingCapacity: true)
                inputStart = 0
            } else if inputStart > 65_536 && inputStart * 2 > input.count {
                input.removeFirst(inputStart)
                inputStart = 0
            }
            if line.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 13 }) { continue }
            return line
        }
        if unread > LineConnection.maxLine && !busy {
            input = []
            inputStart = 0
            send(.failure(PlayerFailure(.invalid, "request line longer than 1 MiB")))
            lock.withLock { afterFlush.append { [weak self] in self?.lock.withLock { self?.overflowed = true } } }
        } else if peerClosed, !busy, unread > 0 {
            // A last line without its newline still counts, as before.
            let line = Array(input[inputStart...])
            input = []
            inputStart = 0
            if !line.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 13 }) { return line }
        }
        return nil
    }

    func send(_ reply: PlayerReply, then done: (@Sendable () -> Void)? = nil) {
        guard let data = try? encoder.encode(reply) else { return }
        _ = enqueue(Array(data))
        if let done { lock.withLock { afterFlush.append(done) } }
        server?.wake()
    }

    /// Queues a line; false once the client is gone or has too much unread.
    private func enqueue(_ line: [UInt8]) -> Bool {
        lock.withLock {
            guard !overflowed && !failed else { return false }
            guard output.count + line.count < ControlServer.maxPendingOutput else {
                overflowed = true   // it stopped reading: dropped rather than waited for
                stoppedReading = true
                return false
            }
            output += line
            output.append(10)
            return true
        }
    }

    func subscribe(to handler: any PlayerControl) {
        lock.withLock {
            guard subscription == nil else { return }
            subscription = Task.detached { [weak self, encoder] in
                for await event in await handler.events() {
                    guard let self, let data = try? encoder.encode(event), self.enqueue(Array(data)) else { break }
                    self.server?.wake()
                }
            }
        }
    }

    /// Writes what the socket takes now; the rest waits for the next POLLOUT.
    func flush() {
        let pending: [UInt8] = lock.withLock { defer { output = [] }; return output }
        var offset = 0
        while offset < pending.count {
            let n = pending.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n > 0 { offset += n; continue }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { break }
            lock.withLock { failed = true }
            return
        }
        if offset < pending.count {
            lock.withLock { output = Array(pending[offset...]) + output }
        } else {
            runAfterFlush()
        }
    }

    private func runAfterFlush() {
        let callbacks: [@Sendable () -> Void] = lock.withLock {
            guard output.isEmpty else { return [] }
            defer { afterFlush = [] }
            return afterFlush
        }
        callbacks.forEach { $0() }
    }

    func close() {
        lock.withLock {
            subscription?.cancel()
            subscription = nil
            failed = true
        }
        Glibc.close(fd)
    }
}
