import Downloads
import Foundation
import PlayerCore
@testable import PlayerService
import TestSupport
import XCTest

/// `play` of a YouTube or Rumble page resolves it to its audio through yt-dlp, the shared runner
/// (`HTTPFetch.YTDLP`), looked up on PATH as the daemon does. yt-dlp is a stand-in here (YouTube
/// cannot be reached from tests).
final class PageResolverTests: XCTestCase {
    /// A page's worth of warnings on stderr (more than a pipe holds) before the URL. The
    /// resolver's own runner read its pipes after the exit: yt-dlp blocked writing stderr and
    /// the play failed at the timeout ("yt-dlp took longer than 20 s").
    func testAYtdlpThatWritesMuchToStderrStillResolves() async throws {
        let dir = try PackagePaths.temporaryDirectory(self)
        _ = try StandInExecutable(dir: dir, script: """
            head -c 300000 /dev/zero | tr '\\0' 'w' >&2
            echo 'https://media.example.com/audio.m4a'
            """)
        // The tests of this target run one at a time; PATH is put back before the next.
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        setenv("PATH", dir.path + ":" + path, 1)
        defer { setenv("PATH", path, 1) }
        let library = try TestLibrary()
        var resolver = MediaResolver(library: library.library, downloads: DownloadStore(directory: dir.path))
        resolver.ytdlpTimeout = 20
        let resolved = try await resolver.resolve(.url("https://www.youtube.com/watch?v=x"), fromStart: false)
        XCTAssertEqual(resolved.request.source, .remote("https://media.example.com/audio.m4a"))
    }
}
