import Foundation

/// What ended a command early: the first SIGINT (Ctrl-C) or SIGTERM it received.
public struct Interrupted: Error, CustomStringConvertible, Sendable {
    public let signal: Int32
    /// What a shell reports for a process that a signal ended: 128 + the signal.
    public var exitCode: Int32 { 128 + signal }
    public var description: String { signal == SIGINT ? "interrupted" : "terminated" }
}

/// Runs `body` in a task that the first SIGINT or SIGTERM cancels, so a long command (sync,
/// import) can wind down and keep what it finished instead of dying with it. A second signal
/// ends the process at once, as Ctrl-C always does. Returns the body's result and the signal
/// that cancelled it, if any.
public func cancellingOnInterrupt<T: Sendable>(_ body: @escaping @Sendable () async -> T) async -> (value: T, interrupted: Interrupted?) {
    let work = Task { await body() }
    let received = Locked<Int32?>(nil)
    let sources = [SIGINT, SIGTERM].map { sig in
        signal(sig, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
        source.setEventHandler {
            let first = received.update { seen in
                defer { if seen == nil { seen = sig } }
                return seen == nil
            }
            if first {
                work.cancel()
            } else {
                signal(sig, SIG_DFL)
                raise(sig)
            }
        }
        source.resume()
        return source
    }
    let value = await work.value
    for (sig, source) in zip([SIGINT, SIGTERM], sources) {
        source.cancel()
        signal(sig, SIG_DFL)
    }
    return (value, received.value.map(Interrupted.init(signal:)))
}

/// A value behind a lock, for the signal handlers.
final class Locked<Value: Sendable>: @unchecked Sendable {
    private var stored: Value
    private let lock = NSLock()

    init(_ value: Value) { stored = value }

    var value: Value { lock.withLock { stored } }

    func update<R>(_ body: (inout Value) -> R) -> R { lock.withLock { body(&stored) } }
}

/// A command a signal cut short, with what it got done: one line, exit status 128 + the signal.
public struct CommandInterrupted: Error, CustomStringConvertible {
    public let interrupted: Interrupted
    public let done: String
    public init(_ interrupted: Interrupted, _ done: String) { self.interrupted = interrupted; self.done = done }
    public var description: String { "\(interrupted): \(done)" }
}
