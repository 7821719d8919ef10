import Foundation
import Synchronization

/// Runs an external tool (yt-dlp) for a provider, bounded as a fetch is: its output is read as
/// it comes (a full pipe would stall it) up to the provider's size cap, and the process is
/// terminated when the cap is passed or the search is cancelled (the provider's timeout).
enum ToolRunner {
    static func find(_ name: String) -> String? {
        if name.contains("/") { return FileManager.default.isExecutableFile(atPath: name) ? name : nil }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for dir in path.split(separator: ":") where FileManager.default.isExecutableFile(atPath: "\(dir)/\(name)") {
            return "\(dir)/\(name)"
        }
        return nil
    }

    static func run(_ path: String, _ arguments: [String], limits: ProviderLimits) async throws(DiscoveryError) -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        let tool = URL(fileURLWithPath: path).lastPathComponent
        let box = ProcessBox(process)
        let outcome = Mutex<(stdout: [UInt8], stderr: [UInt8], overCap: Bool)>(([], [], false))
        // Resumed once: by the process's end (after its output ended), or at once by a
        // cancellation (the timeout), which terminates it: a child it started (a shell's `sleep`,
        // yt-dlp's ffmpeg) may hold the pipes open long after, and the search must not wait for it.
        let resumed = Mutex(false)
        let result: Result<Int32, DiscoveryError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let finish = { @Sendable (value: Result<Int32, DiscoveryError>) in
                    let first = resumed.withLock { done -> Bool in
                        defer { done = true }
                        return !done
                    }
                    if first { continuation.resume(returning: value) }
                }
                box.finish = finish
                do {
                    try box.process.run()
                } catch {
                    return finish(.failure(DiscoveryError("could not start \(tool): \(error)")))
                }
                // Both pipes are drained on threads of their own; the process's end is waited for
                // after its output ended, so nothing it wrote is lost.
                let drained = DispatchGroup()
                drain(err.fileHandleForReading, group: drained) { chunk in
                    outcome.withLock { if $0.stderr.count < 64 * 1024 { $0.stderr += chunk } }
                    return true
                }
                drain(out.fileHandleForReading, group: drained) { chunk in
                    let fine = outcome.withLock { state -> Bool in
                        state.stdout += chunk
                        if state.stdout.count > limits.maxBytes { state.overCap = true }
                        return !state.overCap
                    }
                    if !fine { box.process.terminate() }
                    return fine
                }
                drained.notify(queue: .global()) {
                    box.process.waitUntilExit()
                    finish(.success(box.process.terminationStatus))
                }
                if Task.isCancelled { box.stop() }
            }
        } onCancel: {
            box.stop()
        }
        let status = try result.get()
        let state = outcome.withLock { $0 }
        if state.overCap { throw DiscoveryError("\(tool)'s output is larger than \(limits.maxBytes / 1024) KB (the size cap)") }
        if Task.isCancelled { throw DiscoveryError("\(tool) was stopped") }
        guard status == 0 else {
            let why = String(decoding: state.stderr, as: UTF8.self).split(separator: "\n").last.map(String.init)
            throw DiscoveryError("\(tool) failed: \(why ?? "exit status \(status)")")
        }
        return state.stdout
    }

    /// Reads `handle` to its end on a thread, handing each chunk to `sink` (false: stop reading).
    private static func drain(_ handle: FileHandle, group: DispatchGroup, _ sink: @escaping @Sendable ([UInt8]) -> Bool) {
        group.enter()
        Thread.detachNewThread {
            defer { group.leave() }
            while true {
                let data = handle.availableData
                if data.isEmpty || !sink([UInt8](data)) { return }
            }
        }
    }
}

/// A `Process` shared with the threads that drain it and the cancellation handler: Foundation's
/// `Process` is thread-safe for `terminate`, `isRunning` and `waitUntilExit`, but not `Sendable`.
private final class ProcessBox: @unchecked Sendable {
    let process: Process
    /// Set before the process starts, read by `stop` from the cancellation handler.
    private let finishing = Mutex<(@Sendable (Result<Int32, DiscoveryError>) -> Void)?>(nil)
    init(_ process: Process) { self.process = process }

    var finish: (@Sendable (Result<Int32, DiscoveryError>) -> Void)? {
        get { finishing.withLock { $0 } }
        set { finishing.withLock { $0 = newValue } }
    }

    /// Terminates the process and answers at once (see `ToolRunner.run`).
    func stop() {
        if process.isRunning { process.terminate() }
        finish?(.failure(DiscoveryError("stopped")))
    }
}
