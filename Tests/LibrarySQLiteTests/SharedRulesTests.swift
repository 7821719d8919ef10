import FeedModel
import Foundation
import GRDB
@testable import LibrarySQLite
import LibraryStore
import TestSupport
import Testing

/// The rules every store follows, stated once in Swift (`SearchTerms`, `EpisodeActionRule`,
/// `WatchState`), and checks that where the SQLite store still spells one in SQL (a trigger, a
/// candidate query) it agrees with the Swift statement.
@Suite struct SharedRulesTests {
    // MARK: search terms

    @Test func searchTextIsWordsTheLastAlsoAPrefixNeverSyntax() {
        #expect(SearchTerms("sourdough nutri").terms == [.init(word: "sourdough", prefix: false), .init(word: "nutri", prefix: true)])
        #expect(SearchTerms("\"a\" OR b* -c NEAR(d) e:f ^g").words == ["a", "OR", "b", "c", "NEAR", "d", "e", "f", "g"])
        #expect(SearchTerms(" \"*\" () -- ").isEmpty)
        #expect(SearchTerms("").isEmpty)
        // A combining mark stays in its word (the index folds "é" typed as e + U+0301 to "e").
        #expect(SearchTerms("cafe\u{301} 42").words == ["cafe\u{301}", "42"])
        #expect(SearchSyntax.phrases(SearchTerms("NOT caf\u{E9}")) == ["\"NOT\"", "\"caf\u{E9}\"*"])
    }

    // MARK: gpodder actions

    private let podcast = "https://example.com/show.xml"

    private func play(_ guid: String?, _ episode: String, position: Int = 10, at time: Int64 = 5000) -> EpisodeAction {
        EpisodeAction(podcast: podcast, episode: episode, guid: guid, kind: .play, device: "phone", timestamp: time,
                      started: 0, position: position, total: 600)
    }

    @Test func anActionsPodcastURLMeansTheChannelPolledThereElseTheFirstAddedAsIt() {
        let page = "https://example.com/show"
        let channels = [EpisodeActionRule.ChannelCandidate(id: 9, feedURL: "https://example.com/other.xml", sourceURL: page),
                        EpisodeActionRule.ChannelCandidate(id: 4, feedURL: "https://example.com/shorts.xml", sourceURL: page),
                        EpisodeActionRule.ChannelCandidate(id: 7, feedURL: page, sourceURL: "https://example.com/x")]
        #expect(EpisodeActionRule.channel(podcast: page, among: channels) == 7)
        #expect(EpisodeActionRule.channel(podcast: page, among: Array(channels.prefix(2))) == 4)
        #expect(EpisodeActionRule.channel(podcast: page, among: []) == nil)
    }

    @Test func anActionMeansTheItemByGuidElseByMediaURLNeverOneOfTwo() {
        let items = [EpisodeActionRule.ItemCandidate(id: 1, itemID: "guid-a", guid: "guid-a", mediaURL: "https://x/same.mp3"),
                     EpisodeActionRule.ItemCandidate(id: 2, itemID: "guid-b", guid: "guid-b", mediaURL: "https://x/same.mp3"),
                     EpisodeActionRule.ItemCandidate(id: 3, itemID: "vid3", guid: "yt:video:vid3", mediaURL: nil),
                     EpisodeActionRule.ItemCandidate(id: 4, itemID: "https://x/c.mp3", guid: nil, mediaURL: "https://x/c.mp3")]
        #expect(EpisodeActionRule.item(for: play("guid-b", "https://x/same.mp3"), among: items) == 2)
        #expect(EpisodeActionRule.item(for: play("vid3", "https://x/page"), among: items) == 3, "the parser's id")
        #expect(EpisodeActionRule.item(for: play("yt:video:vid3", "https://x/page"), among: items) == 3, "the feed's guid")
        #expect(EpisodeActionRule.item(for: play(nil, "https://x/c.mp3"), among: items) == 4)
        #expect(EpisodeActionRule.item(for: play("unknown", "https://x/c.mp3"), among: items) == 4, "an unknown guid falls back to the URL")
        #expect(EpisodeActionRule.item(for: play(nil, "https://x/same.mp3"), among: items) == nil, "two items share it")
        #expect(EpisodeActionRule.item(for: play(nil, "https://x/none.mp3"), among: items) == nil)
    }

    @Test func theLastWriterWinsATieIncluded() {
        #expect(EpisodeActionRule.wins(actionTime: 100, over: nil))
        #expect(EpisodeActionRule.wins(actionTime: 100, over: 99))
        #expect(EpisodeActionRule.wins(actionTime: 100, over: 100))
        #expect(!EpisodeActionRule.wins(actionTime: 100, over: 101))
    }

    @Test func whatAnActionDoesAndHowAStateReadsAsOne() {
        #expect(EpisodeActionRule.update(for: play("g", "u", position: 30)) == .position(seconds: 30, length: 600))
        #expect(EpisodeActionRule.update(for: play("g", "u", position: -1)) == nil)
        #expect(EpisodeActionRule.update(for: EpisodeAction(podcast: podcast, episode: "u", kind: .new, timestamp: 1)) == .mark(watched: false))
        #expect(EpisodeActionRule.update(for: EpisodeAction(podcast: podcast, episode: "u", kind: .download, timestamp: 1)) == nil)
        let heard = EpisodeActionRule.action(podcast: podcast, mediaURL: "m", pageURL: "p", guid: "g", duration: 600,
                                             watched: true, progress: 0, changedAt: 7)
        #expect(heard.map { [$0.kind.rawValue, "\($0.position ?? -9)", "\($0.total ?? -9)", $0.episode] } == ["play", "600", "600", "m"])
        #expect(EpisodeActionRule.action(podcast: podcast, mediaURL: nil, pageURL: "p", guid: nil, duration: nil,
                                         watched: true, progress: 0, changedAt: 7) == nil, "heard, but its length is unknown")
        #expect(EpisodeActionRule.action(podcast: podcast, mediaURL: nil, pageURL: "p", guid: nil, duration: nil,
                                         watched: false, progress: 42, changedAt: 7)?.position == 42)
        #expect(EpisodeActionRule.action(podcast: podcast, mediaURL: nil, pageURL: "p", guid: nil, duration: nil,
                                         watched: false, progress: 0, changedAt: 7)?.kind == .new)
        #expect(EpisodeActionRule.action(podcast: podcast, mediaURL: nil, pageURL: nil, guid: nil, duration: 60,
                                         watched: false, progress: 5, changedAt: 7) == nil)
        let actions = [play("a", "u", position: 1, at: 10), play("b", "u", position: 2, at: 5), play("a", "u", position: 3, at: 10),
                       play("a", "u", position: 4, at: 9)]
        #expect(EpisodeActionRule.latestPerEpisode(actions).map(\.position) == [2, 3])
    }

    /// The candidates the store's SQL hands the rule lead it to the item the rule picks from all
    /// of the channel's items: for every kind of action, the item the store matched (kept with the
    /// action) is `EpisodeActionRule.item` over the whole channel.
    @Test func theStoresCandidateQueryAgreesWithTheRuleOverTheWholeChannel() async throws {
        let t = try TestLibrary()
        let channel = try await t.library.addChannel(platform: .podcast, sourceURL: "https://example.com/show", feedURL: podcast,
                                                     name: "Show", now: 1000)
        let items = [
            Item(id: "guid-a", guid: "guid-a", title: "A", enclosure: Enclosure(url: "https://x/same.mp3")),
            Item(id: "guid-b", guid: "guid-b", title: "B", enclosure: Enclosure(url: "https://x/same.mp3")),
            Item(id: "guid-c", guid: "guid-c", title: "C", enclosure: Enclosure(url: "https://x/same.mp3")),
            Item(id: "vid", guid: "yt:video:vid", title: "V", url: "https://x/watch?v=vid"),
            Item(id: "https://x/d.mp3", title: "D", enclosure: Enclosure(url: "https://x/d.mp3")),
            Item(id: "guid-e", guid: "guid-e", title: "E", enclosure: Enclosure(url: "https://x/e.mp3")),
        ]
        _ = try await t.library.ingest(Feed(kind: .podcast, title: "Show", items: items), channelID: channel.id, now: 1000)
        let all = try t.library.readNow { db in
            try Row.fetchAll(db, sql: "SELECT id, item_id, guid, enclosure_url FROM items WHERE channel_id = ?", arguments: [channel.id])
        }.map { EpisodeActionRule.ItemCandidate(id: $0["id"], itemID: $0["item_id"], guid: $0["guid"], mediaURL: $0["enclosure_url"]) }
        let actions = [play("guid-b", "https://x/same.mp3"), play(nil, "https://x/same.mp3"), play("yt:video:vid", "https://x/watch?v=vid"),
                       play("vid", "https://x/other"), play(nil, "https://x/d.mp3"), play("nope", "https://x/e.mp3"),
                       play("nope", "https://x/same.mp3"), play("guid-e", "https://x/d.mp3"), play(nil, "https://x/missing.mp3")]
        for (n, action) in actions.enumerated() {
            _ = try await t.library.recordEpisodeActions([action], now: 5000 + Int64(n))
        }
        let matched = try t.strings("SELECT coalesce(item, 'none') FROM episode_actions ORDER BY id")
        let expected = actions.map { EpisodeActionRule.item(for: $0, among: all).map(String.init) ?? "none" }
        #expect(matched == expected)
        #expect(expected.filter { $0 != "none" }.count == 6, "the actions cover matches of every kind, and misses")
    }

    /// Last writer wins as the store applies it: a phone's action older than the state's last
    /// change leaves it, as old or newer changes it, exactly as `EpisodeActionRule.wins` says.
    @Test func theStoreAppliesActionsAsTheLastWriterRuleSays() async throws {
        let t = try TestLibrary()
        let channel = try await t.library.addChannel(platform: .podcast, sourceURL: podcast, feedURL: podcast, name: "Show", now: 1000)
        _ = try await t.library.ingest(Feed(kind: .podcast, title: "Show", items: [
            Item(id: "g", guid: "g", title: "G", duration: 600, enclosure: Enclosure(url: "https://x/g.mp3")),
        ]), channelID: channel.id, now: 1000)
        let id = try await t.library.id(of: "g")
        for (n, offset) in [-1, 0, 1].enumerated() {
            let changed: Int64 = 10_000 * Int64(n + 1)
            try await t.library.setProgress(id, seconds: 100, now: changed)
            let action = play("g", "https://x/g.mp3", position: 200, at: changed + Int64(offset))
            _ = try await t.library.recordEpisodeActions([action], now: changed + 5)
            let applied = try await t.library.item(id: id).progress == 200
            #expect(applied == EpisodeActionRule.wins(actionTime: action.timestamp, over: changed), "offset \(offset)")
        }
    }

    // MARK: watch state

    /// The owner's `items.state`, kept by the schema's triggers in SQL, is what
    /// `WatchState(watched:progress:)` says for every stored watch state.
    @Test func theStateTriggersAgreeWithTheWatchStateRule() async throws {
        let t = try TestLibrary()
        let channel = try await t.library.addTestChannel("show")
        _ = try await t.library.ingest(Feed(kind: .podcast, title: "Show", items: [item("x")]), channelID: channel, now: 1000)
        let id = try await t.library.id(of: "x")
        #expect(try t.strings("SELECT state FROM items WHERE id = \(id)") == ["\(WatchState.untouched.rawValue)"])
        for (watched, progress) in [(false, 0), (false, 30), (true, 0), (true, 30), (false, 0)] {
            try t.execute("""
                INSERT INTO watch_state (user_id, item, watched, progress_seconds, watched_at, updated_at)
                VALUES (\(LibraryUsers.ownerID), \(id), \(watched ? 1 : 0), \(progress), \(watched ? "1" : "NULL"), 1)
                ON CONFLICT (user_id, item) DO UPDATE SET watched = excluded.watched, progress_seconds = excluded.progress_seconds,
                    watched_at = excluded.watched_at
                """)
            #expect(try t.strings("SELECT state FROM items WHERE id = \(id)") == ["\(WatchState(watched: watched, progress: progress).rawValue)"],
                    "watched \(watched), progress \(progress)")
        }
        try t.execute("DELETE FROM watch_state WHERE item = \(id)")
        #expect(try t.strings("SELECT state FROM items WHERE id = \(id)") == ["\(WatchState(watched: false, progress: 0).rawValue)"])
    }

    // MARK: saved videos

    /// A page's platform is kept trimmed of what Foundation's `.whitespaces` trims (spaces and
    /// tabs, a line break kept: the rule the SQLite store had before it moved to `SavedPage`), in
    /// lower case; a name that is only such spaces is refused, with the field's API name.
    @Test func aSavedPageIsTrimmedAsFoundationTrimsSpacesAndRefusedWhenBlank() throws {
        var samples = [" YouTube\t", "\u{00A0}odysee\u{2003}", "\nrumble\n", "\u{3000} Po dcast ", "\t", "\u{202F}", "\n", "x\u{200B}", "",
                       "\u{FEFF}a\u{85}", "\r"]
        // Every scalar that could be a space, alone and around a letter.
        for value in Array(0...0x3000) + [0xFEFF] {
            guard let scalar = Unicode.Scalar(value), scalar.properties.isWhitespace || scalar.properties.generalCategory == .format else { continue }
            samples += [String(scalar), "\(scalar)A\(scalar)"]
        }
        for sample in samples {
            let page = SavedPage(platform: sample, videoID: "v", videoURL: "https://x/v", title: "t")
            let expected = sample.trimmingCharacters(in: .whitespaces).lowercased()
            if expected.isEmpty {
                #expect(throws: LibraryError.invalid("platform must not be empty")) { try page.validated() }
            } else {
                #expect(try page.validated().platform == expected, "\(sample.unicodeScalars.map(\.value))")
            }
            let titled = SavedPage(platform: "youtube", videoID: "v", videoURL: "https://x/v", title: sample)
            #expect((try? titled.validated()) == (sample.trimmingCharacters(in: .whitespaces).isEmpty ? nil : titled))
        }
        let page = SavedPage(platform: "youtube", videoID: "v", videoURL: "https://x/v", title: "t", durationSeconds: 0, viewCount: 0)
        #expect(try page.validated() == page)
        var bad = page
        bad.videoID = " "
        #expect(throws: LibraryError.invalid("video_id must not be empty")) { try bad.validated() }
        bad = page
        bad.videoURL = "\t"
        #expect(throws: LibraryError.invalid("video_url must not be empty")) { try bad.validated() }
        bad = page
        bad.durationSeconds = -1
        #expect(throws: LibraryError.invalid("duration_seconds must not be negative")) { try bad.validated() }
        bad = page
        bad.viewCount = -1
        #expect(throws: LibraryError.invalid("view_count must not be negative")) { try bad.validated() }
    }

    /// A saved video's change to its watch state: a mark resets the progress to the one given
    /// with it, a progress alone is a position, nothing is nothing; negative seconds are refused.
    @Test func aSavedVideosChangeIsAMarkAPositionOrNothing() throws {
        #expect(try SavedVideoChange(watched: true).watchUpdate() == .mark(watched: true, progress: 0))
        #expect(try SavedVideoChange(watched: false, progressSeconds: 30).watchUpdate() == .mark(watched: false, progress: 30))
        #expect(try SavedVideoChange(progressSeconds: 30).watchUpdate() == .position(seconds: 30))
        #expect(try SavedVideoChange(notes: "n").watchUpdate() == nil)
        #expect(throws: LibraryError.invalid("progress must be 0 or more seconds (got -2)")) {
            try SavedVideoChange(watched: true, progressSeconds: -2).watchUpdate()
        }
        #expect(throws: LibraryError.invalid("progress must be 0 or more seconds (got -1)")) {
            try SavedVideoChange(progressSeconds: -1).watchUpdate()
        }
    }
}
