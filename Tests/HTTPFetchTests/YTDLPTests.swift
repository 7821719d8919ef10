import Foundation
import HTTPFetch
import TestSupport
import XCTest

/// The one yt-dlp runner, against stand-ins for yt-dlp (YouTube and Rumble cannot be reached
/// from tests): shell scripts that print what it prints, fail as it fails, or never end. No
/// duration is asserted; every wait is bounded by the runner's own timeout.
final class YTDLPTests: XCTestCase {
    private func standIn(_ script: String) throws -> String {
        try StandInExecutable(dir: try PackagePaths.temporaryDirectory(self), script: script).path
    }

    private static func failure(_ runner: YTDLP, _ arguments: [String] = []) async -> YTDLPError? {
        do {
            let output = try await runner.run(arguments, for: "playing https://www.youtube.com/watch?v=x")
            XCTFail("answered \(output.count) bytes")
            return nil
        } catch {
            return error
        }
    }

    func testItsOutputIsTheAnswerAndTheArgumentsArePassedAsGiven() async throws {
        let path = try standIn(#"printf '%s|' "$@""#)
        let output = try await YTDLP(executable: path, timeout: 30, maxOutputBytes: 1024).run(["-g", "--", "a b", "$HOME"], for: "x")
        XCTAssertEqual(String(decoding: output, as: UTF8.self), "-g|--|a b|$HOME|")
    }

    func testAMissingYtdlpSaysHowToGetIt() async throws {
        let error = await Self.failure(YTDLP(executable: "/nonexistent/yt-dlp", maxOutputBytes: 1024))
        XCTAssertEqual(error?.kind, .notInstalled)
        XCTAssertEqual(error?.description, "playing https://www.youtube.com/watch?v=x needs yt-dlp, which is not installed (pip install yt-dlp)")
    }

    func testAFailureEndsWithTheLastLineYtdlpWroteToStderr() async throws {
        let path = try standIn("""
            echo 'WARNING: [youtube] x: nsig extraction failed' >&2
            echo 'ERROR: [youtube] x: Video unavailable' >&2
            exit 1
            """)
        let error = await Self.failure(YTDLP(executable: path, timeout: 30, maxOutputBytes: 1024))
        XCTAssertEqual(error?.kind, .failed(status: 1))
        XCTAssertEqual(error?.description, "playing https://www.youtube.com/watch?v=x: yt-dlp failed: ERROR: [youtube] x: Video unavailable")
    }

    func testOutputPastTheCapStopsIt() async throws {
        let path = try standIn("head -c 200000 /dev/zero; sleep 30")
        let error = await Self.failure(YTDLP(executable: path, timeout: 30, maxOutputBytes: 64 * 1024))
        XCTAssertEqual(error?.kind, .outputTooLarge)
        XCTAssertEqual(error?.description, "playing https://www.youtube.com/watch?v=x: yt-dlp's output is larger than 64 KB (the size cap)")
    }

    /// Its child (`sleep`, as yt-dlp's ffmpeg would) keeps the pipes open after it is stopped:
    /// the answer does not wait for that.
    func testPastItsTimeoutItIsStopped() async throws {
        let path = try standIn("echo started; sleep 30")
        let error = await Self.failure(YTDLP(executable: path, timeout: 0.5, maxOutputBytes: 1024))
        XCTAssertEqual(error?.kind, .timedOut)
        XCTAssertEqual(error?.description, "playing https://www.youtube.com/watch?v=x: yt-dlp took longer than 0.5 s")
    }

    func testACancelledCallerStopsIt() async throws {
        let path = try standIn("sleep 30")
        let runner = YTDLP(executable: path, timeout: 30, maxOutputBytes: 1024)
        let task = Task.detached { () -> YTDLPError? in await YTDLPTests.failure(runner) }
        try await Task.sleep(nanoseconds: 200_000_000)
        task.cancel()
        let error = await task.value
        XCTAssertEqual(error?.kind, .stopped)
    }

    /// A page's worth of warnings on stderr, more than a pipe holds, then the URL: read as it
    /// comes, so yt-dlp never blocks writing it. (The player's runner read its pipes only after
    /// the exit, so such a yt-dlp stalled until the timeout.)
    func testMuchOnStderrDoesNotStallIt() async throws {
        let path = try standIn("""
            head -c 300000 /dev/zero | tr '\\0' 'w' >&2
            echo 'https://media.example.com/audio.m4a'
            """)
        let output = try await YTDLP(executable: path, timeout: 30, maxOutputBytes: 1024).run([], for: "x")
        XCTAssertEqual(String(decoding: output, as: UTF8.self), "https://media.example.com/audio.m4a\n")
    }
}
