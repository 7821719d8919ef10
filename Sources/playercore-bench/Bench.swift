import Foundation
import NowPlaying
import PlayerCore

/// Entry point for bench/decode and bench/playback:
///   playercore-bench decode FILE      decode+resample the whole file into a null output, print seconds
///   playercore-bench play FILE        play FILE in real time through PulseAudio until it ends
/// PLAYERCORE_BENCH_BUFFER_MS sets the PulseAudio buffer (default 150).
@main
struct Bench {
    static func main() {
        let args = CommandLine.arguments.dropFirst()
        guard args.count == 2, let mode = args.first, let path = args.last, mode == "decode" || mode == "play" else {
            FileHandle.standardError.write(Data("usage: playercore-bench decode|play FILE\n".utf8))
            exit(2)
        }
        let ended = EndSignal()
        let output: PlayerConfiguration.Output = mode == "decode" ? .discard : .pulse(server: nil)
        var configuration = PlayerConfiguration(output: output)
        if let ms = ProcessInfo.processInfo.environment["PLAYERCORE_BENCH_BUFFER_MS"].flatMap(Double.init) {
            configuration.bufferDuration = ms / 1000
        }
        let player = Player(configuration: configuration, progressSink: ended)
        let start = DispatchTime.now()
        player.play(PlayRequest(itemKey: "bench", source: .localFile(path)))
        let error = ended.wait()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        player.shutdown()
        if let error {
            FileHandle.standardError.write(Data("playercore-bench: \(error)\n".utf8))
            exit(1)
        }
        print(String(format: "%.3f", seconds))
    }
}

/// Waits for the player to report the end of the item.
final class EndSignal: ProgressSink, @unchecked Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private var error: PlayerError?

    func saveProgress(itemKey: String, position: Double, duration: Double?) {}
    func itemFinished(itemKey: String) {}
    func playbackEnded(itemKey: String, error: PlayerError?) {
        self.error = error
        semaphore.signal()
    }

    func wait() -> PlayerError? {
        semaphore.wait()
        return error
    }
}
