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
