import NowPlaying
import XCTest
@testable import PlayerCore

/// The player's transitions without audio: (state, input) → (state, actions).
final class PlayerMachineTests: XCTestCase {
    typealias Machine = PlayerMachine
    let a = PlayRequest(key: .item(1), source: .localFile("/a.mp3"))
    let b = PlayRequest(key: .url("https://example.com/b.mp3"), source: .remote("https://example.com/b.mp3"))
    let reply = Machine.Reply(id: 7)
    let chapters = [Chapter(start: 0, title: "One"), Chapter(start: 30, title: "Two")]

    /// `request` opened (60 s unless said otherwise) and `written` seconds of it handed to the output.
    func playing(_ request: PlayRequest? = nil, duration: Double? = 60, written: Double = 10) -> Machine {
        var machine = Machine()
        _ = machine.handle(.command(.play(request ?? a)))
        _ = machine.handle(.opened(PlaybackID(1), duration: duration, chapters: chapters, startAt: 0))
        _ = machine.handle(.wrote(seconds: written, rate: 1))
        return machine
    }

    func paused(written: Double = 10, latency: Double = 0.5) -> Machine {
        var machine = playing(written: written)
        _ = machine.handle(.command(.pause))
        _ = machine.handle(.corked(reply: nil, latency: latency, heard: nil))
        return machine
    }

    func checkpoint(_ position: Double, of request: PlayRequest? = nil, playback: UInt64 = 1,
                    duration: Double? = 60) -> Machine.Action {
        .report(ProgressReport(.checkpoint, key: (request ?? a).key, playback: PlaybackID(playback), position: position,
                               duration: duration))
    }

    // MARK: Play

    func testPlayOpensThenPlaysAndAnswersOnceOpened() {
        var machine = Machine()
        XCTAssertEqual(machine.handle(.command(.play(a), reply: reply)), [.open(a, PlaybackID(1), rate: 1, startAt: 0)])
        // Taken but not playing yet: NowPlaying shows the item while it opens.
        XCTAssertEqual(machine.status, .stopped)
        XCTAssertEqual(machine.metadata, a.metadata)
        XCTAssertNil(machine.item)

        XCTAssertEqual(machine.handle(.opened(PlaybackID(1), duration: 60, chapters: chapters, startAt: 0)),
                       [.startTracker, .complete(reply, .done)])
        XCTAssertEqual(machine.status, .playing)
        XCTAssertEqual(machine.item?.duration, 60)
        XCTAssertEqual(machine.metadata?.length, 60, "the length the decoder found")
        XCTAssertEqual(machine.chapters.source, .embedded)
        XCTAssertEqual(machine.chapters.chapters.last?.end, 60)
        XCTAssertEqual(machine.jump.count, 0, "a start at 0 is no jump")
    }

    func testTheStartPositionIsClampedAndIsAJump() {
        var machine = Machine()
        var late = a
        late.startAt = -5
        XCTAssertEqual(machine.handle(.command(.play(late))), [.open(late, PlaybackID(1), rate: 1, startAt: 0)])
        late.startAt = .nan
        guard case .open(_, _, _, let startAt)? = machine.handle(.command(.play(late))).last else {
            return XCTFail("no open")
        }
        XCTAssertEqual(startAt, 0)
        late.startAt = 90
        XCTAssertEqual(machine.handle(.command(.play(late))).last, .open(late, PlaybackID(3), rate: 1, startAt: 90))
        XCTAssertEqual(Machine.startPosition(90, duration: 60), 60)
        XCTAssertEqual(Machine.startPosition(90, duration: nil), 90)
        _ = machine.handle(.opened(PlaybackID(3), duration: 60, chapters: [], startAt: 30))
        XCTAssertEqual(machine.position(latency: 0), 30)
        XCTAssertEqual(machine.jump, Machine.Jump(count: 1, position: 30))
    }

    func testPlayReplacesThePlayingItemOnceTheNewOneOpened() {
        var machine = playing()
        let actions = machine.handle(.command(.play(b), reply: reply, latency: 0.25))
        // Saved and held (corked), not closed: it comes back if b cannot open.
        XCTAssertEqual(actions, [checkpoint(9.75), .stopTracker, .hold, .open(b, PlaybackID(2), rate: 1, startAt: 0)])
        XCTAssertEqual(machine.metadata, b.metadata)
        XCTAssertEqual(machine.status, .stopped)
        XCTAssertTrue(machine.chapters.isEmpty)
        XCTAssertEqual(machine.position(latency: 0), 0)
        // The player replaced it as b opened: nothing more to close.
        XCTAssertEqual(machine.handle(.opened(PlaybackID(2), duration: 30, chapters: [], startAt: 0)),
                       [.startTracker, .complete(reply, .done)])
        XCTAssertEqual(machine.item?.request, b)
    }

    func testAPlayStillOpeningIsSupersededByAStop() {
        var machine = Machine()
        _ = machine.handle(.command(.play(a), reply: reply))
        let stop = Machine.Reply(id: 8)
        XCTAssertEqual(machine.handle(.command(.stop, reply: stop)), [.complete(reply, .superseded), .complete(stop, .done)])
        XCTAssertNil(machine.metadata)
        // If the decode thread opened it anyway, it is not wanted.
        XCTAssertEqual(machine.handle(.opened(PlaybackID(1), duration: 60, chapters: [], startAt: 0)), [.close])
        XCTAssertEqual(machine.status, .stopped)
    }

    func testAnOpenThatGaveWayIsSupersededNotAnError() {
        var machine = Machine()
        _ = machine.handle(.command(.play(a), reply: reply))
        XCTAssertEqual(machine.handle(.openCancelled(PlaybackID(1))), [.complete(reply, .superseded)])
        XCTAssertEqual(machine.status, .stopped)
        XCTAssertNil(machine.error)
        XCTAssertNil(machine.metadata)
        // The newer command decides: the item held for it goes.
        var held = playing()
        _ = held.handle(.command(.play(b), reply: reply))
        XCTAssertEqual(held.handle(.openCancelled(PlaybackID(2))), [.close, .complete(reply, .superseded)])
        XCTAssertEqual(held.status, .stopped)
        XCTAssertNil(held.item)
    }

    // MARK: Pause, resume, toggle

    func testPauseCorksThenFreezesWhatWasHeardAndSavesIt() {
        var machine = playing()
        XCTAssertEqual(machine.handle(.command(.pause, reply: reply)), [.cork(reply: reply)])
        XCTAssertEqual(machine.status, .playing, "playing until the output is corked")
        XCTAssertEqual(machine.handle(.corked(reply: reply, latency: 0.5, heard: nil)),
                       [.stopTracker, checkpoint(9.5), .complete(reply, .done)])
        XCTAssertEqual(machine.status, .paused)
        XCTAssertEqual(machine.position(latency: 2), 9.5, "frozen whatever the output reports")
    }

    func testPauseWhenNotPlayingDoesNothing() {
        var stopped = Machine()
        XCTAssertEqual(stopped.handle(.command(.pause, reply: reply)), [.complete(reply, .done)])
        var machine = paused()
        XCTAssertEqual(machine.handle(.command(.pause)), [])
        XCTAssertEqual(machine.status, .paused)
    }

    func testResumeUncorksAndTicksAgain() {
        var machine = paused()
        XCTAssertEqual(machine.handle(.command(.resume, reply: reply)), [.uncork, .startTracker, .complete(reply, .done)])
        XCTAssertEqual(machine.status, .playing)
        XCTAssertEqual(machine.position(latency: 0), 10, "the written audio is heard from where it paused")
        var stopped = Machine()
        XCTAssertEqual(stopped.handle(.command(.resume)), [])
    }

    func testTogglePausesWhenPlayingElseResumes() {
        var machine = playing()
        XCTAssertEqual(machine.handle(.command(.toggle)), [.cork(reply: nil)])
        _ = machine.handle(.corked(reply: nil, latency: 0, heard: nil))
        XCTAssertEqual(machine.handle(.command(.toggle)), [.uncork, .startTracker])
        XCTAssertEqual(machine.status, .playing)
        var stopped = Machine()
        XCTAssertEqual(stopped.handle(.command(.toggle, reply: reply)), [.complete(reply, .done)])
        XCTAssertEqual(stopped.status, .stopped)
    }

    // MARK: Stop

    func testStopSavesSilencesAndStops() {
        var machine = playing()
        XCTAssertEqual(machine.handle(.command(.stop, reply: reply, latency: 0.25)),
                       [checkpoint(9.75), .stopTracker, .close, .complete(reply, .done)])
        XCTAssertEqual(machine.status, .stopped)
        XCTAssertNil(machine.item)
        XCTAssertNil(machine.metadata)
        XCTAssertTrue(machine.chapters.isEmpty)
        XCTAssertEqual(machine.handle(.command(.stop)), [], "stopping a stopped player does nothing")
    }

    func testStopThenVolumeSetsTheVolumeOnceSilent() {
        var machine = paused(latency: 0)
        XCTAssertEqual(machine.handle(.command(.stopThenVolume(0.8))),
                       [checkpoint(10), .stopTracker, .close, .setVolume(0.8)])
        XCTAssertEqual(machine.volume, 0.8)
        XCTAssertEqual(machine.handle(.command(.stopThenVolume(0.5))), [.setVolume(0.5)], "stopped: the volume only")
    }

    // MARK: Seek

    /// A seek command, then the decode thread's report that the decoder moved: both steps' actions.
    func seek(_ machine: inout Machine, _ command: Player.Command, reply: Machine.Reply? = nil,
              latency: Double? = nil) -> [Machine.Action] {
        let first = machine.handle(.command(command, reply: reply, latency: latency))
        guard case .seek(let target, let owed)? = first.last else { return first }
        return first + machine.handle(.seeked(to: target, reply: owed))
    }

    func testAFailedSeekPlaysOnFromWhereItWasAndTellsTheCaller() {
        var machine = playing()
        XCTAssertEqual(machine.handle(.command(.seek(.absolute(42)), reply: reply, latency: 0.5)),
                       [.seek(to: 42, reply: reply)])
        XCTAssertEqual(machine.position(latency: 0.5), 9.5, "the position moves only once the decoder did")
        let failure = PlayerError.cannotDecode(source: "/a.mp3", reason: "seek failed: Connection refused")
        XCTAssertEqual(machine.handle(.seekFailed(failure, reply: reply)), [.complete(reply, .failed(failure))])
        XCTAssertEqual(machine.status, .playing)
        XCTAssertEqual(machine.position(latency: 0.5), 9.5)
        XCTAssertEqual(machine.jump.count, 0, "no seeked event")
        XCTAssertNil(machine.error, "the item plays on: no error to show")
    }

    func testSeeksAreClampedAtZeroAndSaved() {
        var machine = playing()
        XCTAssertEqual(seek(&machine, .seek(.relative(-15)), latency: 0), [.seek(to: 0, reply: nil), checkpoint(0)])
        XCTAssertEqual(machine.jump, Machine.Jump(count: 1, position: 0))
        XCTAssertEqual(seek(&machine, .seek(.absolute(-3))), [.seek(to: 0, reply: nil), checkpoint(0)])
        XCTAssertEqual(seek(&machine, .seek(.absolute(.nan))), [.seek(to: 0, reply: nil), checkpoint(0)])
        XCTAssertEqual(seek(&machine, .seek(.absolute(42)), reply: reply),
                       [.seek(to: 42, reply: reply), checkpoint(42), .complete(reply, .done)])
        XCTAssertEqual(machine.position(latency: 0.3), 42, "nothing before the target can be heard")
        _ = machine.handle(.wrote(seconds: 1, rate: 1))
        // Relative to what is heard: 43 written, 0.5 of it not yet heard.
        XCTAssertEqual(seek(&machine, .seek(.relative(15)), latency: 0.5), [.seek(to: 57.5, reply: nil), checkpoint(57.5)])
        XCTAssertEqual(machine.jump.count, 5)
        XCTAssertEqual(machine.status, .playing)
    }

    func testASeekWhilePausedStaysPausedAtTheTarget() {
        var machine = paused(latency: 0.5)
        XCTAssertEqual(seek(&machine, .seek(.relative(15)), latency: 3), [.seek(to: 24.5, reply: nil), checkpoint(24.5)])
        XCTAssertEqual(machine.status, .paused)
        XCTAssertEqual(machine.position(latency: 1), 24.5)
    }

    func testSeekingAtOrPastTheEndEndsTheItem() {
        var machine = playing()
        let end = ProgressReport(.end, key: a.key, playback: PlaybackID(1), position: 60, duration: 60)
        XCTAssertEqual(machine.handle(.command(.seek(.absolute(60)), reply: reply)),
                       [.stopTracker, .report(end), .ended(a.key, nil), .close, .complete(reply, .done)])
        XCTAssertEqual(machine.status, .stopped)
        XCTAssertNil(machine.error)
        var relative = playing()
        XCTAssertEqual(relative.handle(.command(.seek(.relative(100)))).first, .stopTracker)
        XCTAssertEqual(relative.status, .stopped)
        // Without a known length there is no end to seek past.
        var live = playing(duration: nil)
        XCTAssertEqual(seek(&live, .seek(.absolute(1000))),
                       [.seek(to: 1000, reply: nil), checkpoint(1000, duration: nil)])
    }

    func testSeekingWithNothingPlayingDoesNothing() {
        var machine = Machine()
        XCTAssertEqual(machine.handle(.command(.seek(.absolute(10)), reply: reply)), [.complete(reply, .done)])
        XCTAssertEqual(machine.jump.count, 0)
    }

    // MARK: The end

    func testTheEndIsReportedAtTheDurationNotSaved() {
        var machine = playing()
        let end = ProgressReport(.end, key: a.key, playback: PlaybackID(1), position: 60, duration: 60)
        XCTAssertEqual(machine.handle(.reachedEnd(latency: 0)), [.stopTracker, .report(end), .ended(a.key, nil), .close])
        XCTAssertEqual(machine.status, .stopped)
        XCTAssertNil(machine.error)
        // Of unknown length: where it ended.
        var live = playing(duration: nil, written: 12)
        let liveEnd = ProgressReport(.end, key: a.key, playback: PlaybackID(1), position: 12, duration: 12)
        XCTAssertEqual(live.handle(.reachedEnd(latency: 0)).dropFirst().first, .report(liveEnd))
    }

    func testWritingAdvancesThePositionInMediaTime() {
        var machine = playing(written: 0)
        XCTAssertEqual(machine.handle(.wrote(seconds: 1, rate: 2)), [])
        XCTAssertEqual(machine.position(latency: 0), 2)
        XCTAssertEqual(machine.position(latency: 0.5), 1, "half a second of output at 2x is a second of media")
    }

    // MARK: Failures

    /// A play whose media cannot open changes nothing but the error: what played plays on from
    /// where it was heard, and nothing "ended" (a queue would move on).
    func testAPlayThatCannotOpenGivesBackWhatPlayed() {
        var machine = playing()
        let error = PlayerError.cannotOpen(source: "https://example.com/b.mp3", reason: "Failed to resolve hostname")
        _ = machine.handle(.command(.play(b), reply: reply, latency: 0.25))
        XCTAssertEqual(machine.handle(.openFailed(PlaybackID(2), error)), [.uncork, .startTracker, .complete(reply, .failed(error))])
        XCTAssertEqual(machine.status, .playing)
        XCTAssertEqual(machine.item?.request, a)
        XCTAssertEqual(machine.metadata?.key, a.key)
        XCTAssertEqual(machine.chapters.chapters.count, 2, "its chapters too")
        XCTAssertEqual(machine.error, error)
        XCTAssertEqual(machine.position(latency: 0.25), 9.75, "on from where it was heard")
        _ = machine.handle(.wrote(seconds: 1, rate: 1))
        XCTAssertEqual(machine.position(latency: 0.25), 10.75)
        // The next play clears the error.
        _ = machine.handle(.command(.play(a)))
        XCTAssertNil(machine.error)
    }

    func testAPlayThatCannotOpenLeavesAPausedItemPausedAndAStoppedPlayerStopped() {
        var machine = paused()
        let error = PlayerError.cannotOpen(source: "https://example.com/b.mp3", reason: "Connection refused")
        XCTAssertEqual(machine.handle(.command(.play(b), reply: reply)), [checkpoint(9.5), .stopTracker, .hold,
                                                                             .open(b, PlaybackID(2), rate: 1, startAt: 0)])
        XCTAssertEqual(machine.handle(.openFailed(PlaybackID(2), error)), [.complete(reply, .failed(error))])
        XCTAssertEqual(machine.status, .paused)
        XCTAssertEqual(machine.position(latency: 0), 9.5)
        XCTAssertEqual(machine.handle(.command(.resume)), [.uncork, .startTracker])

        var stopped = Machine()
        _ = stopped.handle(.command(.play(b), reply: reply))
        XCTAssertEqual(stopped.handle(.openFailed(PlaybackID(1), error)), [.complete(reply, .failed(error))])
        XCTAssertEqual(stopped.status, .stopped)
        XCTAssertNil(stopped.metadata)
    }

    /// The output failing once the new media opened: the held item is gone with it, the caller
    /// is told, and still nothing "ended".
    func testAnOutputFailingWhileOpeningDropsTheHeldItem() {
        var machine = playing()
        let error = PlayerError.audioOutput(reason: "stream failed")
        _ = machine.handle(.command(.play(b), reply: reply))
        XCTAssertEqual(machine.handle(.failed(error, latency: nil)), [.close, .complete(reply, .failed(error))])
        XCTAssertEqual(machine.status, .stopped)
        XCTAssertNil(machine.item)
    }

    func testAFailureWhilePlayingSavesEndsAndStops() {
        var machine = playing()
        let error = PlayerError.cannotDecode(source: "/a.mp3", reason: "ends at 10.0 s of 60.0 s (truncated?)")
        XCTAssertEqual(machine.handle(.failed(error, latency: 0.5)),
                       [.ended(a.key, error), checkpoint(9.5), .stopTracker, .close])
        XCTAssertEqual(machine.status, .stopped)
        XCTAssertEqual(machine.error, error)
    }

    func testLosingPulseAudioForgetsTheOutput() {
        var machine = playing()
        let lost = PlayerError.pulseUnavailable(reason: "connection lost")
        // Its latency unknown, only the start is sure to have been heard.
        XCTAssertEqual(machine.handle(.failed(lost, latency: nil)),
                       [.ended(a.key, lost), checkpoint(0), .stopTracker, .close, .dropOutput])
        _ = machine.handle(.command(.play(b)))
        XCTAssertEqual(machine.handle(.failed(lost, latency: nil)), [.dropOutput])
    }

    func testAFailedCorkStillAnswersItsCaller() {
        var machine = playing()
        let error = PlayerError.audioOutput(reason: "stream failed")
        XCTAssertEqual(machine.handle(.failed(error, latency: 0, reply: reply)),
                       [.ended(a.key, error), checkpoint(10), .stopTracker, .close, .complete(reply, .done)])
    }

    // MARK: Speed, volume, chapters

    /// The machine keeps the filter working (atempo's range); which speeds people choose is
    /// FeedModel's `PlaybackSpeed`, applied by the service before it asks.
    func testRateIsKeptWithinTheFiltersRangeAndAppliedToThePlayingItem() {
        var stopped = Machine()
        XCTAssertEqual(stopped.handle(.command(.rate(1.52))), [])
        XCTAssertEqual(stopped.rate, 1.52, "kept for the next item")
        var machine = playing()
        XCTAssertEqual(machine.handle(.command(.rate(700))), [.setTempo(100)])
        XCTAssertEqual(machine.rate, 100)
        XCTAssertEqual(machine.handle(.command(.rate(.nan))), [.setTempo(1)])
    }

    func testAnItemsOwnRateWinsOnceItOpens() {
        var machine = Machine()
        _ = machine.handle(.command(.rate(1.5)))
        var slow = a
        slow.rate = 0.76
        XCTAssertEqual(machine.handle(.command(.play(slow))), [.open(slow, PlaybackID(1), rate: 0.76, startAt: 0)])
        XCTAssertEqual(machine.rate, 1.5, "not until it opened")
        _ = machine.handle(.opened(PlaybackID(1), duration: 60, chapters: [], startAt: 0))
        XCTAssertEqual(machine.rate, 0.76)
        // One that fails to open leaves the speed as it was.
        _ = machine.handle(.command(.play(b)))
        var fast = b
        fast.rate = 2
        _ = machine.handle(.command(.play(fast)))
        _ = machine.handle(.openFailed(PlaybackID(3), .cannotOpen(source: "b", reason: "no")))
        XCTAssertEqual(machine.rate, 0.76)
    }

    func testVolumeIsClamped() {
        var machine = Machine()
        XCTAssertEqual(machine.handle(.command(.volume(1.7))), [.setVolume(1)])
        XCTAssertEqual(machine.handle(.command(.volume(-1))), [.setVolume(0)])
        XCTAssertEqual(machine.handle(.command(.volume(.nan))), [.setVolume(1)])
        XCTAssertEqual(machine.handle(.command(.volume(0.25), reply: reply)), [.setVolume(0.25), .complete(reply, .done)])
        XCTAssertEqual(machine.volume, 0.25)
    }

    func testChaptersForAnotherItemAreIgnored() {
        var machine = playing()
        let podcast = ChapterList([Chapter(start: 0, title: "Cold open"), Chapter(start: 5, title: "News")], source: .podcast)
        XCTAssertEqual(machine.handle(.command(.chapters(podcast, for: b.key), reply: reply)), [.complete(reply, .done)])
        XCTAssertEqual(machine.chapters.source, .embedded)
        _ = machine.handle(.command(.chapters(podcast, for: a.key)))
        XCTAssertEqual(machine.chapters.source, .podcast)
        XCTAssertEqual(machine.chapters.chapters.map(\.end), [5, 60], "ends from the next start and the item's length")
    }

    // MARK: Shutdown

    func testShutdownSavesStopsAndEndsTheThread() {
        var machine = playing()
        XCTAssertEqual(machine.handle(.shutdown(latency: 0)), [checkpoint(10), .stopTracker, .close, .exit])
        XCTAssertTrue(machine.isShutDown)
        XCTAssertEqual(machine.handle(.command(.play(b), reply: reply)), [.complete(reply, .superseded)])
        XCTAssertEqual(machine.handle(.command(.pause)), [])
        var idle = Machine()
        XCTAssertEqual(idle.handle(.shutdown(latency: nil)), [.exit])
    }
}
