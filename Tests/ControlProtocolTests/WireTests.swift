import CLISupport
import ControlProtocol
import FeedModel
import Foundation
import Testing

/// The control protocol's one mapping between JSON lines and typed commands.
@Suite struct WireTests {
    static let commands: [PlayerCommand] = [
        .status, .play(.item(42), fromStart: true), .play(.url("https://x/ep.mp3"), fromStart: false),
        .play(.local("/tmp/a b.mp3"), fromStart: false), .pause, .resume, .toggle, .stop,
        .seek(.by(-15)), .seek(.to(90.5)), .volume(try! PlayerVolume(0.25)), .queueAdd([.item(7)], next: false), .queueAdd([.item(7), .url("https://e.com/a.mp3"), .local("/tmp/x.mp3")], next: true),
        .queueRemove(2), .queueMove(from: 3, to: 1), .queueList, .queueClear,
        .next, .sleep(.after(seconds: 1800)), .sleep(.endOfItem), .sleep(.off), .speed(1.5), .speed(nil), .chapters,
        .chapter(.next), .chapter(.previous), .chapter(.number(3)), .subscribe, .ping, .quit,
    ]

    @Test(arguments: commands)
    func everyCommandSurvivesTheWire(_ command: PlayerCommand) throws {
        let line = try JSONEncoder().encode(ControlRequest(command, id: 9))
        let back = try JSONDecoder().decode(ControlRequest.self, from: line)
        #expect(back.id == 9)
        #expect(try back.command() == command)
    }

    @Test func theDocumentedLinesDecode() throws {
        func command(_ json: String) throws -> PlayerCommand {
            try JSONDecoder().decode(ControlRequest.self, from: Data(json.utf8)).command()
        }
        #expect(try command(#"{"id": 1, "cmd": "play", "target": "42", "from_start": false}"#) == .play(.item(42), fromStart: false))
        #expect(try command(#"{"id": 2, "cmd": "seek", "offset": -15}"#) == .seek(.by(-15)))
        #expect(try command(#"{"cmd": "seek", "position": 90}"#) == .seek(.to(90)))
        #expect(try command(#"{"cmd": "sleep", "mode": "end-of-item"}"#) == .sleep(.endOfItem))
        #expect(try command(#"{"cmd": "chapter", "target": "Previous"}"#) == .chapter(.previous))
        #expect(try command(#"{"cmd": "play", "target": "HTTPS://x/a.mp3"}"#) == .play(.url("HTTPS://x/a.mp3"), fromStart: false))
        // Anything but an id or an http(s) URL is what the user named; the service decides.
        #expect(try command(#"{"cmd": "play", "target": "ftp://x/a.mp3"}"#) == .play(.local("ftp://x/a.mp3"), fromStart: false))
        // The queue: one target or several, in front with "next"; positions from 1.
        #expect(try command(#"{"cmd": "queue_add", "target": "7"}"#) == .queueAdd([.item(7)], next: false))
        #expect(try command(#"{"cmd": "queue_add", "targets": ["7", "/tmp/a.mp3"], "next": true}"#) == .queueAdd([.item(7), .local("/tmp/a.mp3")], next: true))
        #expect(try command(#"{"cmd": "queue_remove", "position": 2}"#) == .queueRemove(2))
        #expect(try command(#"{"cmd": "queue_move", "from": 3, "to": 1}"#) == .queueMove(from: 3, to: 1))
    }

    @Test func whatCannotBeACommandSaysWhyInOneLine() throws {
        func refusal(_ json: String) throws -> String {
            let request = try JSONDecoder().decode(ControlRequest.self, from: Data(json.utf8))
            do { _ = try request.command(); return "" } catch { return error.description }
        }
        #expect(try refusal(#"{"cmd": "dance"}"#) == "unknown command \"dance\"")
        #expect(try refusal(#"{"cmd": "play"}"#) == "play needs a target: an item id, a URL or a file")
        #expect(try refusal(#"{"cmd": "seek"}"#) == "seek needs an offset, a position or steps")
        #expect(try refusal(#"{"cmd": "volume"}"#) == "volume needs a value (0–1) or a change (-1–1)")
        #expect(try refusal(#"{"cmd": "queue_add"}"#) == "queue add needs a target (or targets)")
        #expect(try refusal(#"{"cmd": "sleep", "seconds": -5}"#) == "sleep needs a duration (30m, 90s, 1h30m), end-of-item or off")
        #expect(try refusal(#"{"cmd": "chapter", "target": "soon"}"#) == "chapter takes next, prev or a chapter number")
    }

    /// A refusal carries its kind as `code` beside the line for people; clients decide by the
    /// kind (`checked()` throws it), and read a code they do not know, or none, as `failed`.
    @Test func aRefusalCarriesItsKind() throws {
        let reply = PlayerReply.failure(PlayerFailure(.notFound, "no item 42"), id: 3)
        let line = String(decoding: try JSONEncoder().encode(reply), as: UTF8.self)
        #expect(line.contains(#""code":"not_found""#) && line.contains(#""error":"no item 42""#))
        let back = try JSONDecoder().decode(PlayerReply.self, from: Data(line.utf8))
        #expect(back.failure == PlayerFailure(.notFound, "no item 42"))
        #expect(throws: PlayerFailure(.notFound, "no item 42")) { try back.checked() }
        for kind in PlayerFailure.Kind.allCases {
            let json = try JSONEncoder().encode(PlayerReply.failure(PlayerFailure(kind, "x")))
            #expect(try JSONDecoder().decode(PlayerReply.self, from: json).failure?.kind == kind)
        }
        let newer = try JSONDecoder().decode(PlayerReply.self, from: Data(#"{"ok": false, "code": "on_fire", "error": "x"}"#.utf8))
        #expect(newer.failure == PlayerFailure(.failed, "x"))
        let older = try JSONDecoder().decode(PlayerReply.self, from: Data(#"{"ok": false, "error": "x"}"#.utf8))
        #expect(older.failure == PlayerFailure(.failed, "x"))
        #expect(try PlayerReply(ok: true).checked() == PlayerReply(ok: true))
        #expect(ProtocolError("bad").failure == PlayerFailure(.invalid, "bad"))
    }

    @Test func statusCarriesEveryKeyWithNulls() throws {
        let json = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(PlayerStatus(position: 1.23456))) as? [String: Any]
        #expect(Set(json?.keys ?? [:].keys) == ["status", "position", "duration", "title", "artist", "item_id", "url",
                                               "volume", "rate", "chapter", "error", "sleep_at"])
        #expect(json?["duration"] is NSNull && json?["position"] as? Double == 1.235)
        // A daemon's reply decodes back, nulls included.
        let back = try JSONDecoder().decode(PlayerStatus.self, from: try JSONEncoder().encode(PlayerStatus(duration: 60)))
        #expect(back.duration == 60 && back.title == nil)
    }
}

/// The one parser for durations and positions typed on the command line.
@Suite struct DurationArgumentTests {
    @Test func clockUnitsAndBareNumbers() {
        #expect(DurationArgument.seconds("90") == 90)
        #expect(DurationArgument.seconds("45", bare: .minutes) == 2700)
        #expect(DurationArgument.seconds("1:30") == 90)
        #expect(DurationArgument.seconds("1:02:03") == 3723)
        #expect(DurationArgument.seconds("75:30") == 4530)
        #expect(DurationArgument.seconds("0:12.5") == 12.5)
        #expect(DurationArgument.seconds("30m") == 1800)
        #expect(DurationArgument.seconds("1h30m") == 5400)
        #expect(DurationArgument.seconds("90s") == 90)
        #expect(DurationArgument.seconds("1.5h") == 5400)
        #expect(DurationArgument.seconds("PT1M30S") == 90)
        #expect(DurationArgument.seconds(" 2:00 ") == 120)
    }

    /// Its bound is `PlayerLimits.positions`, included (it was `<`, where the wire had `<=`);
    /// `unbounded` leaves the bound to a type that says it (`SeekTarget`).
    @Test func theBoundIsThePlayersPositionsIncluded() {
        #expect(DurationArgument.seconds("1000000000") == 1_000_000_000)
        #expect(DurationArgument.seconds("1000000001") == nil)
        #expect(DurationArgument.unbounded("1000000001") == 1_000_000_001)
        #expect(DurationArgument.unbounded("-1") == nil)
        #expect(DurationArgument.unbounded("1e400") == nil)
    }

    @Test func nonsenseIsNil() {
        for text in ["", "soon", "1:75", "1:2:3:4", "-5", "1e400", "nan", "inf", "5124096h", "12x", "m", "1::2", "٣٠"] {
            #expect(DurationArgument.seconds(text) == nil, "\(text)")
        }
    }
}

/// Seeks spelled as the tests write them; `SeekTarget`'s own initializers check (and trap here on
/// a value a test got wrong).
extension SeekTarget {
    static func to(_ seconds: Double) -> SeekTarget { try! SeekTarget(position: seconds) }
    static func by(_ seconds: Double) -> SeekTarget { try! SeekTarget(offset: seconds) }
    static func steps(_ count: Int) -> SeekTarget { try! SeekTarget(steps: count) }
}
