import Dispatch
import Foundation
import Synchronization

/// yt-dlp (not a Debian package: `pip install yt-dlp`), bounded as a fetch is: the one runner
/// for every caller (discovery's YouTube search, the player's YouTube and Rumble pages). Its
/// output is read as it comes (a full pipe would stall it) up to `maxOutputBytes`; it is stopped
/// past `timeout` or when the calling task is cancelled, and then the answer comes at once (a
/// child it started, its ffmpeg, may hold the pipes open long after). No thread of its own:
/// the pipes are read by Dispatch.
public struct YTDLP: Sendable {
    /// `yt-dlp`, looked up on PATH, or a path.
    public var executable: String
    /// Seconds before it is stopped; nil when the caller's cancellation is its only bound.
    public var timeout: Double?
    /// Bytes of standard output past which it is stopped.
    public var maxOutputBytes: Int

    public init(executable: String = "yt-dlp", timeout: Double? = nil, maxOutputBytes: Int) {
        self.executable = executable; self.timeout = timeout; self.maxOutputBytes = maxOutputBytes
    }

    /// Runs yt-dlp with `arguments` and answers what it printed, when it exited with status 0.
    /// `purpose` begins each error's line ("searching YouTube", "playing https://…").
    public func run(_ arguments: [String], for purpose: String) async throws(YTDLPError) -> [UInt8] {
        guard let path = Self.find(executable) else {
            throw YTDLPError(.notInstalled, "\(purpose) needs yt-dlp, which is not installed (pip install yt-dlp)")
        }
        let run = YTDLPRun(path: path, arguments: arguments, maxOutputBytes: maxOutputBytes)
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                run.start(continuation)
                if let timeout {
                    DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { run.stop(.timedOut) }
                }
                if Task.isCancelled { run.stop(.stopped) }
            }
        } onCancel: {
            run.stop(.stopped)
        }
        switch outcome {
        case .exited(0, let output, _):
            return output
        case .exited(let status, _, let errorTail):
            let why = String(decoding: errorTail, as: UTF8.self).split(whereSeparator: \.isNewline).last.map(String.init)
            throw YTDLPError(.failed(status: status), "\(purpose): yt-dlp failed: \(why ?? "exit status \(status)")")
        case .couldNotStart(let why):
            throw YTDLPError(.couldNotStart, "\(purpose): could not start \(path): \(why)")
        case .stopped(.timedOut):
            let seconds = timeout ?? 0
            throw YTDLPError(.timedOut, "\(purpose): yt-dlp took longer than \(seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)) s")
        case .stopped(.outputTooLarge):
            throw YTDLPError(.outputTooLarge, "\(purpose): yt-dlp's output is larger than \(maxOutputBytes / 1024) KB (the size cap)")
        case .stopped(.stopped):
            throw YTDLPError(.stopped, "\(purpose): yt-dlp was stopped")
        }
    }

    /// The runner `audioURL(ofPage:)` is called on: a URL or two is all it prints.
    public static func audioResolver(timeout: Double) -> YTDLP { YTDLP(timeout: timeout, maxOutputBytes: 64 * 1024) }

    /// The direct audio URL of a YouTube or Rumble video page (`yt-dlp -f bestaudio/best -g`):
    /// how the daemon plays such a page and the server proxies it, resolved the same way by both.
    public func audioURL(ofPage page: String) async throws(YTDLPError) -> String {
        // It prints a URL or two; a page's worth of warnings goes to stderr, whose end is kept.
        let output = try await run(["-f", "bestaudio/best", "-g", "--no-playlist", "--", page], for: "playing \(page)")
        guard let url = String(decoding: output, as: UTF8.self).split(whereSeparator: \.isNewline).first.map(String.init) else {
            throw YTDLPError(.printedNothing, "playing \(page): yt-dlp printed no URL")
        }
        return url
    }

    /// `name` on PATH (or `name` itself when it is a path), if it is an executable file.
    static func find(_ name: String) -> String? {
        if name.contains("/") { return FileManager.default.isExecutableFile(atPath: name) ? name : nil }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}

/// Why yt-dlp gave nothing, as a kind a caller can match and the line a person reads.
public struct YTDLPError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: Equatable, Sendable {
        case notInstalled
        case couldNotStart
        /// It exited with this status (the line ends with the last line it wrote to stderr).
        case failed(status: Int32)
        case timedOut
        case outputTooLarge
        /// It succeeded but printed no answer.
        case printedNothing
        /// The caller was cancelled.
        case stopped
    }

    public var kind: Kind
    public var description: String

    init(_ kind: Kind, _ description: String) { self.kind = kind; self.description = description }
}

/// One run of yt-dlp: its process, its two pipes read by `DispatchIO`, and the answer, given
/// once: when it exited and both pipes ended, or at once when it is stopped.
private final class YTDLPRun: @unchecked Sendable {
    enum Stop { case timedOut, outputTooLarge, stopped }
    enum Outcome {
        case exited(Int32, output: [UInt8], errorTail: [UInt8])
        case couldNotStart(String)
        case stopped(Stop)
    }

    /// The end of stderr kept for the failure's line (yt-dlp's `ERROR:` line comes last).
    private static let errorTailBytes = 8 * 1024

    private struct State {
        var output: [UInt8] = []
        var errorTail: [UInt8] = []
        var openPipes = 2
        var status: Int32?
        var answer: CheckedContinuation<Outcome, Never>?
        var streams: [DispatchIO] = []
        var stopped = false
    }

    private let process = Process()
    private let maxOutputBytes: Int
    private let state = Mutex(State())

    init(path: String, arguments: [String], maxOutputBytes: Int) {
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        self.maxOutputBytes = maxOutputBytes
    }

    func start(_ continuation: CheckedContinuation<Outcome, Never>) {
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        process.terminationHandler = { [self] process in
            finish { $0.status = process.terminationStatus }
        }
        state.withLock { $0.answer = continuation }
        do {
            try process.run()
        } catch {
            answer(.couldNotStart("\(error)"))
            return
        }
        // Stopped while it was starting (a timeout of 0, a cancelled caller).
        if state.withLock({ $0.stopped }) { process.terminate() }
        read(output) { [self] chunk in
            let over = state.withLock { state in
                state.output += chunk
                return state.output.count > maxOutputBytes
            }
            if over { stop(.outputTooLarge) }
        }
        read(errors) { [self] chunk in
            state.withLock { state in
                state.errorTail += chunk
                if state.errorTail.count > Self.errorTailBytes { state.errorTail.removeFirst(state.errorTail.count - Self.errorTailBytes) }
            }
        }
    }

    /// Terminates the process and answers now; the pipes are closed without waiting for their end.
    func stop(_ why: Stop) {
        let streams = state.withLock { state in
            state.stopped = true
            return state.streams
        }
        if process.isRunning { process.terminate() }
        answer(.stopped(why))
        for stream in streams { stream.close(flags: .stop) }
    }

    /// Reads `pipe` to its end, each chunk to `sink`. The pipe is kept (its descriptor open)
    /// until the read has ended.
    private func read(_ pipe: Pipe, _ sink: @escaping @Sendable ([UInt8]) -> Void) {
        let stream = DispatchIO(type: .stream, fileDescriptor: pipe.fileHandleForReading.fileDescriptor, queue: .global()) { _ in
            _ = pipe
        }
        stream.setLimit(lowWater: 1)
        let stopped = state.withLock { state in
            state.streams.append(stream)
            return state.stopped
        }
        if stopped { stream.close(flags: .stop) }
        stream.read(offset: 0, length: Int.max, queue: .global()) { [self] done, data, _ in
            if let data, !data.isEmpty { sink([UInt8](data)) }
            if done {
                stream.close()
                finish { $0.openPipes -= 1 }
            }
        }
    }

    /// Applies `change`; answers once the process exited and both pipes ended.
    private func finish(_ change: (inout State) -> Void) {
        let ended: Outcome? = state.withLock { state in
            change(&state)
            guard state.openPipes == 0, let status = state.status else { return nil }
            return .exited(status, output: state.output, errorTail: state.errorTail)
        }
        if let ended { answer(ended) }
    }

    private func answer(_ outcome: Outcome) {
        state.withLock { state in
            let continuation = state.answer
            state.answer = nil
            return continuation
        }?.resume(returning: outcome)
    }
}
