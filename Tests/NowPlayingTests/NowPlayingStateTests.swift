import XCTest
@testable import NowPlaying

final class NowPlayingStateTests: XCTestCase {
    let track = TrackMetadata(key: .item(42), title: "Episode 42", artist: "Channel", album: "Podcast",
                              length: nil, artURL: "https://example.com/a.jpg", url: "https://example.com/42.mp3")

    func testStatusChangesAreEventsOnlyWhenTheyChange() {
        var state = NowPlayingState()
        XCTAssertEqual(state.status, .stopped)
        XCTAssertEqual(state.apply(.status(.playing)), [.statusChanged(.playing)])
        XCTAssertEqual(state.apply(.status(.playing)), [])
        XCTAssertEqual(state.apply(.status(.paused)), [.statusChanged(.paused)])
        XCTAssertEqual(PlaybackStatus.paused.rawValue, "Paused")
    }

    func testMetadataDrivesCapabilities() {
        var state = NowPlayingState()
        XCTAssertFalse(state.canPlay)
        XCTAssertTrue(state.canControl)
        XCTAssertEqual(state.apply(.metadata(track)), [.metadataChanged(track), .capabilitiesChanged])
        XCTAssertTrue(state.canPlay && state.canPause)
        XCTAssertFalse(state.canSeek, "no length yet")
        // The first tick that knows the duration fills in the length.
        var withLength = track
        withLength.length = 60
        XCTAssertEqual(state.apply(.tick(position: 1, duration: 60)),
                       [.metadataChanged(withLength), .capabilitiesChanged, .tick(position: 1, duration: 60)])
        XCTAssertTrue(state.canSeek)
        XCTAssertEqual(state.apply(.tick(position: 2, duration: 60)), [.tick(position: 2, duration: 60)])
        XCTAssertEqual(state.position, 2)
        XCTAssertEqual(state.apply(.queue(canGoNext: true, canGoPrevious: false)), [.capabilitiesChanged])
        XCTAssertTrue(state.canGoNext)
        XCTAssertEqual(state.apply(.metadata(nil)), [.metadataChanged(nil), .capabilitiesChanged])
        XCTAssertFalse(state.canPlay)
    }

    func testSeekVolumeErrorAndStop() {
        var state = NowPlayingState()
        _ = state.apply(.metadata(track))
        _ = state.apply(.status(.playing))
        XCTAssertEqual(state.apply(.seeked(position: 15)), [.seeked(position: 15)])
        XCTAssertEqual(state.position, 15)
        XCTAssertEqual(state.apply(.seeked(position: -3)), [.seeked(position: 0)])
        XCTAssertEqual(state.apply(.volume(1.7)), [], "clamped to 1, unchanged")
        XCTAssertEqual(state.apply(.volume(0.5)), [.volumeChanged(0.5)])
        XCTAssertEqual(state.apply(.rate(1)), [])
        XCTAssertEqual(state.apply(.error("boom")), [.errorChanged("boom")])
        XCTAssertEqual(state.apply(.error(nil)), [.errorChanged(nil)])
        XCTAssertNil(state.chapter)
        _ = state.apply(.tick(position: 9, duration: nil))
        XCTAssertEqual(state.apply(.status(.stopped)), [.statusChanged(.stopped)])
        XCTAssertEqual(state.position, 0)
    }
}

final class NowPlayingCenterTests: XCTestCase {
    func testSubscribersReceiveEventsInOrder() async {
        let center = NowPlayingCenter()
        let first = center.events()
        let second = center.events()
        center.apply(.metadata(TrackMetadata(key: .item(1), title: "T")))
        center.apply(.status(.playing))
        center.apply(.seeked(position: 30))
        center.apply(.tick(position: 31, duration: nil))
        center.apply(.status(.paused))
        let expected: [NowPlayingEvent] = [
            .metadataChanged(TrackMetadata(key: .item(1), title: "T")), .capabilitiesChanged,
            .statusChanged(.playing), .seeked(position: 30), .tick(position: 31, duration: nil),
            .statusChanged(.paused),
        ]
        for stream in [first, second] {
            var got: [NowPlayingEvent] = []
            for await event in stream {
                got.append(event)
                if got.count == expected.count { break }
            }
            XCTAssertEqual(got, expected)
        }
        XCTAssertEqual(center.state.status, .paused)
        XCTAssertEqual(center.state.position, 31)
    }

    func testSlowSubscriberKeepsTheNewest() async {
        let center = NowPlayingCenter()
        let stream = center.events(bufferingNewest: 2)
        for i in 1...10 { center.apply(.tick(position: Double(i), duration: nil)) }
        var got: [NowPlayingEvent] = []
        for await event in stream {
            got.append(event)
            if got.count == 2 { break }
        }
        XCTAssertEqual(got, [.tick(position: 9, duration: nil), .tick(position: 10, duration: nil)])
    }
}
