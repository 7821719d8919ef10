import Foundation
import NowPlaying
import TestSupport
import XCTest
@testable import PlayerCore

/// Base class: each test class gets its own headless PulseAudio (started once in `setUp()` of the
/// class, stopped in its `tearDown()`), so classes can run in parallel. If PulseAudio or ffmpeg
/// can't start, every test fails with the reason: nothing is skipped.
class PulseTestCase: XCTestCase {
    nonisolated(unsafe) static var servers: [ObjectIdentifier: Result<PulseServer, Error>] = [:]

    var pulse: PulseServer!
    var media: Fixtures!
    var players: [Player] = []

    override class func setUp() {
        super.setUp()
        servers[ObjectIdentifier(self)] = Result { try PulseServer() }
    }

    override class func tearDown() {
        if case .success(let server)? = servers[ObjectIdentifier(self)] {
            server.stop()
            server.remove()
        }
        servers[ObjectIdentifier(self)] = nil
        super.tearDown()
    }

    override func setUpWithError() throws {
        guard let result = Self.servers[ObjectIdentifier(type(of: self))] else {
            throw ProcessRunner.Failure(description: "PulseAudio fixture missing")
        }
        pulse = try result.get()
        media = try Fixtures.shared.get()
    }

    override func tearDown() {
        for player in players { player.shutdown() }
        players.removeAll()
        super.tearDown()
    }

    func makePlayer(sink: (any ProgressSink)? = nil, seekStep: Double = 15) -> Player {
        let player = Player(configuration: PlayerConfiguration(output: .pulse(server: pulse.server), seekStep: seekStep,
                                                               networkTimeout: 5),
                            progressSink: sink)
        players.append(player)
        return player
    }

    /// Plays `url` under the key `.file(key)`: a name, so one file can be several items.
    func request(_ url: URL, key: String = "item", startAt: Double = 0) -> PlayRequest {
        PlayRequest(key: .file(key), source: .localFile(url.path), startAt: startAt)
    }

    /// Waits until the player is playing and the listener has heard at least `heard` seconds past `from`.
    func waitUntilAudible(_ player: Player, from start: Double = 0, heard: Double = 0.3,
                          file: StaticString = #filePath, line: UInt = #line) {
        let ok = eventually(timeout: 5) {
            let s = player.snapshot
            return s.status == .playing && s.position >= start + heard
        }
        XCTAssertTrue(ok, "player never became audible: \(player.snapshot)", file: file, line: line)
    }

    /// Records `seconds` of the sink and measures it.
    func record(_ seconds: Double) throws -> Recording.Stats { try pulse.record(seconds) }

    /// Silence that was heard: the recording must hold most of the `seconds` it lasted (an empty
    /// one proves nothing), all of it quiet.
    func assertSilence(_ stats: Recording.Stats, over seconds: Double, _ what: String,
                       file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertGreaterThanOrEqual(stats.seconds, seconds / 2, "\(what): the sink's monitor recorded too little: \(stats)",
                                    file: file, line: line)
        XCTAssertLessThan(stats.rms, 0.002, "\(what): expected silence, heard \(stats)", file: file, line: line)
    }

    func assertTone(_ stats: Recording.Stats, _ frequency: Double, _ what: String,
                    file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(stats.frequency, frequency, accuracy: frequency * 0.05,
                       "\(what): heard \(stats.frequency) Hz, expected \(frequency) Hz", file: file, line: line)
        XCTAssertGreaterThan(stats.rms, 0.05, "\(what): too quiet (RMS \(stats.rms))", file: file, line: line)
    }
}

/// Records every ProgressSink call.
final class RecordingSink: ProgressSink, @unchecked Sendable {
    /// A checkpoint or the end: what a library saves as the resume position.
    struct Save: Equatable {
        let key: TrackKey
        let position: Double
        let duration: Double?
    }
    private let lock = NSLock()
    private var _reports: [ProgressReport] = []
    private var _ended: [(TrackKey, PlayerError?)] = []

    var reports: [ProgressReport] { lock.withLock { _reports } }
    var ticks: [ProgressReport] { reports.filter { $0.kind == .tick } }
    var saves: [Save] {
        reports.filter { $0.kind != .tick }.map { Save(key: $0.key, position: $0.position, duration: $0.duration) }
    }
    /// The items reported as played to their end.
    var finished: [TrackKey] { reports.filter { $0.kind == .end }.map(\.key) }
    var ended: [(TrackKey, PlayerError?)] { lock.withLock { _ended } }

    func progress(_ report: ProgressReport) { lock.withLock { _reports.append(report) } }
    func playbackEnded(key: TrackKey, error: PlayerError?) { lock.withLock { _ended.append((key, error)) } }
}
