import Dispatch
import NowPlaying
import PlayerCore
#if canImport(Glibc)
import Glibc
#endif

/// Entry point for bench/decode and bench/playback:
///   playercore-bench decode FILE      decode+resample the whole file into a null output, print ms
///   playercore-bench play FILE        play FILE in real time through PulseAudio until it ends
/// PLAYERCORE_BENCH_BUFFER_MS sets the PulseAudio buffer (default 150); PLAYERCORE_BENCH_SPEED the
/// playback speed (default 1). No Foundation: its libraries would add ~9 MB to the RSS measured.
@main
struct Bench {
    static func main() {
        let args = CommandLine.arguments.dropFirst()
        guard args.count == 2, let mode = args.first, let path = args.last, mode == "decode" || mode == "play" else {
            fail("usage: playercore-bench decode|play FILE", status: 2)
        }
        let ended = EndSignal()
        let output: PlayerConfiguration.Output = mode == "decode" ? .discard : .pulse(server: nil)
        var configuration = PlayerConfiguration(output: output)
        if let ms = environment("PLAYERCORE_BENCH_BUFFER_MS").flatMap(Double.init) {
            configuration.bufferDuration = ms / 1000
        }
        let player = Player(configuration: configuration, progressSink: ended)
        let start = DispatchTime.now()
        let speed = environment("PLAYERCORE_BENCH_SPEED").flatMap(Double.init)
        player.send(.play(PlayRequest(key: .file(path), source: .localFile(path), rate: speed)))
        let error = ended.wait()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        player.shutdown()
        if let error {
            fail("playercore-bench: \(error)", status: 1)
        }
        // Milliseconds through write(2): print(Double) alone adds ~0.4 MB of runtime pages to the RSS.
        let line = "\(Int((seconds * 1000).rounded())) ms\n"
        _ = write(1, line, line.utf8.count)
    }

    static func environment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }

    static func fail(_ message: String, status: Int32) -> Never {
        var line = message + "\n"
        line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) } // fd 2: Glibc's `stderr` is not Sendable
        exit(status)
    }
}

/// Waits for the player to report the end of the item.
final class EndSignal: ProgressSink, @unchecked Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private var error: PlayerError?

    func progress(_ report: ProgressReport) {}
    func playbackEnded(key: TrackKey, error: PlayerError?) {
        self.error = error
        semaphore.signal()
    }

    func wait() -> PlayerError? {
        semaphore.wait()
        return error
    }
}
