import FeedModel
import Testing

/// The product's rules, each stated once in FeedModel.
@Suite struct RulesTests {
    @Test func shortForm() {
        #expect(ShortForm.maxDuration == 180)
    }

    @Test func playbackSpeed() {
        #expect(PlaybackSpeed.range == 0.5...3.0)
        #expect(PlaybackSpeed.normalized(1.15) == 1.15)
        #expect(PlaybackSpeed.normalized(1.52) == 1.5)
        #expect(PlaybackSpeed.normalized(7) == 3)
        #expect(PlaybackSpeed.normalized(1.26) == 1.25)
        #expect(PlaybackSpeed.normalized(0.1) == 0.5)
        #expect(PlaybackSpeed.normalized(9) == 3)
        #expect(PlaybackSpeed.normalized(.nan) == 1)
        #expect(PlaybackSpeed.normalized(-.infinity) == 1)
        #expect(["1.0", "1.5", "1.25", "0.55", "3.0", "2.05"] ==
                [1.0, 1.5, 1.25, 0.55, 3.0, 2.05].map(PlaybackSpeed.text))
    }

    /// The seek's rule, stated once: positions 0…1e9 s, offsets ±1e9 s, 1…1000 steps either way,
    /// each bound included; nothing else can be made (NaN and infinities included).
    @Test func aSeekIsValidByConstruction() throws {
        let max = PlayerLimits.maxPosition
        #expect(try SeekTarget(position: 0).move == .to(0))
        #expect(try SeekTarget(position: max).move == .to(max))
        #expect(try SeekTarget(offset: -max).move == .by(-max))
        #expect(try SeekTarget(offset: max).move == .by(max))
        #expect(try SeekTarget(steps: 1000).move == .steps(1000))
        #expect(try SeekTarget(steps: -1000).move == .steps(-1000))
        for bad in [-0.001, max.nextUp, .nan, .infinity, -.infinity] {
            #expect(throws: PlayerValueError("seek position must be between 0 and 1000000000 seconds")) { try SeekTarget(position: bad) }
        }
        for bad in [-max.nextUp, max.nextUp, .nan, .infinity] {
            #expect(throws: PlayerValueError("seek offset must be at most 1000000000 seconds either way")) { try SeekTarget(offset: bad) }
        }
        for bad in [0, 1001, -1001, Int.min] {
            #expect(throws: PlayerValueError("seek steps must be 1 to 1000 either way")) { try SeekTarget(steps: bad) }
        }
        // MPRIS's Seek takes any Int64 of microseconds: held to the bound.
        #expect(SeekTarget(clampingOffset: 9.2e12).move == .by(max))
        #expect(SeekTarget(clampingOffset: -9.2e12).move == .by(-max))
        #expect(SeekTarget(clampingOffset: .nan).move == .by(0))
    }

    @Test func aVolumeIsValidByConstruction() throws {
        #expect(try PlayerVolume(0).value == 0)
        #expect(try PlayerVolume(1).value == 1)
        #expect(PlayerVolume.full.value == 1)
        for bad in [-0.0001, 1.nextUp, .nan, .infinity] {
            #expect(throws: PlayerValueError("volume must be between 0 and 1 (0–100 %)")) { try PlayerVolume(bad) }
        }
        #expect(try PlayerVolume.Change(-1).value == -1)
        #expect(try PlayerVolume.Change(1).value == 1)
        for bad in [-1.0001, 1.nextUp, .nan] {
            #expect(throws: PlayerValueError("volume change must be between -1 and 1 (±100 %)")) { try PlayerVolume.Change(bad) }
        }
        // MPRIS: negative is 0 (its spec), above 1 is 1 (never amplified).
        #expect(PlayerVolume(clamping: -3).value == 0)
        #expect(PlayerVolume(clamping: 1.7).value == 1)
        #expect(PlayerVolume(clamping: .nan).value == 1)
        #expect(PlayerVolume(clamping: 0.4).value == 0.4)
    }

    @Test func heardIsTheEndOr95PercentWithUnderTwoMinutesLeft() {
        #expect(WatchRule.isHeard(position: 99.6, duration: 100))
        #expect(!WatchRule.isHeard(position: 94, duration: 100))
        #expect(WatchRule.isHeard(position: 95, duration: 100))
        // 95 % of two hours leaves 6 minutes: not heard until the last two.
        #expect(!WatchRule.isHeard(position: 6840, duration: 7200))
        #expect(WatchRule.isHeard(position: 7081, duration: 7200))
        #expect(!WatchRule.isHeard(position: 500, duration: nil))
        #expect(!WatchRule.isHeard(position: 0, duration: 0))
    }

    @Test func channelName() {
        #expect(ChannelName.fromFeed(title: "  The Show\n") == "The Show")
        #expect(ChannelName.fromFeed(title: " \u{A0}\t") == nil)
        #expect(ChannelName.forNewChannel(feedTitle: "", feedURL: "https://x/feed") == "https://x/feed")
    }

    @Test func platform() {
        #expect(Feed.Kind.allCases.map(Platform.init) == [.podcast, .youtube, .rumble, .podcast, .podcast])
        #expect(Platform(guessingFrom: "https://www.youtube.com/feeds/videos.xml?channel_id=UCx") == .youtube)
        #expect(Platform(guessingFrom: "https://user@M.YouTube.com:443/x") == .youtube)
        #expect(Platform(guessingFrom: "https://rumble.com/c/name") == .rumble)
        #expect(Platform(guessingFrom: "https://notyoutube.com/feed") == .podcast)
        #expect(Platform(guessingFrom: "feed.xml") == .podcast)
    }

    @Test func pagesThatPlayThroughThePageResolver() {
        #expect(Platform.pagePlatform(ofURL: "https://www.youtube.com/watch?v=dQw4w9WgXcQ") == .youtube)
        #expect(Platform.pagePlatform(ofURL: "https://youtu.be/dQw4w9WgXcQ?si=x") == .youtube)
        #expect(Platform.pagePlatform(ofURL: "https://m.youtube.com/shorts/abc") == .youtube)
        #expect(Platform.pagePlatform(ofURL: "HTTPS://Rumble.com/v4abcd-some-title.html") == .rumble)
        #expect(Platform.pagePlatform(ofURL: "https://rr3---sn.googlevideo.com/videoplayback?x") == nil)
        #expect(Platform.pagePlatform(ofURL: "https://hugh.cdn.rumble.cloud/video/a.mp4") == nil)
        #expect(Platform.pagePlatform(ofURL: "https://feeds.example.com/ep.mp3") == nil)
        #expect(Platform.pagePlatform(ofURL: "/home/me/youtube.com/a.mp3") == nil)
        #expect(Platform.youtube.playsThroughPageResolver && Platform.rumble.playsThroughPageResolver)
        #expect(!Platform.podcast.playsThroughPageResolver)
    }

    @Test func watchStateCodes() {
        #expect(WatchState.allCases.map(\.rawValue) == [0, 1, 2])
    }
}
