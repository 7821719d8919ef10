import ControlProtocol
import FeedModel
import Foundation
import Testing

/// What the wire gained for the player verbs (seek steps, volume changes), and the numbers it
/// refuses before anything computes with them (`PlayerLimits`).
@Suite struct WireLimitsTests {
    private func decode(_ json: String) throws -> ControlRequest {
        try JSONDecoder().decode(ControlRequest.self, from: Data(json.utf8))
    }

    @Test(arguments: [PlayerCommand.seek(.steps(1)), .seek(.steps(-2)), .changeVolume(by: try! PlayerVolume.Change(-0.1)),
                      .changeVolume(by: try! PlayerVolume.Change(0.05))])
    func newCommandsSurviveTheWire(_ command: PlayerCommand) throws {
        let line = try JSONEncoder().encode(ControlRequest(command, id: 3))
        #expect(try JSONDecoder().decode(ControlRequest.self, from: line).command() == command)
    }

    @Test func stepsAndChangesAreSpelledAsDocumented() throws {
        #expect(try decode(#"{"cmd": "seek", "steps": -1}"#).command() == .seek(.steps(-1)))
        #expect(try decode(#"{"cmd": "volume", "change": 0.05}"#).command() == .changeVolume(by: try PlayerVolume.Change(0.05)))
    }

    @Test(arguments: [
        (#"{"cmd": "sleep", "seconds": 1e300}"#, "sleep is at most 7 days ahead"),
        (#"{"cmd": "sleep", "seconds": 604801}"#, "sleep is at most 7 days ahead"),
        (#"{"cmd": "seek", "offset": -1e12}"#, "seek offset must be at most 1000000000 seconds either way"),
        (#"{"cmd": "seek", "position": 1e10}"#, "seek position must be between 0 and 1000000000 seconds"),
        (#"{"cmd": "seek", "steps": 0}"#, "seek steps must be 1 to 1000 either way"),
        (#"{"cmd": "volume", "value": 2}"#, "volume must be between 0 and 1 (0–100 %)"),
        (#"{"cmd": "volume", "change": 1.5}"#, "volume change must be between -1 and 1 (±100 %)"),
    ])
    func numbersPastTheLimitsAreRefusedInOneLine(_ json: String, _ error: String) throws {
        #expect(throws: ProtocolError(error)) { try decode(json).command() }
    }

    /// Each bound, on the wire: the last value in is taken, the first out refused (the rule is
    /// `SeekTarget`'s and `PlayerVolume`'s, made where the line is decoded).
    @Test(arguments: [
        (#"{"cmd": "seek", "position": 0}"#, true), (#"{"cmd": "seek", "position": 1000000000}"#, true),
        (#"{"cmd": "seek", "position": -0.001}"#, false), (#"{"cmd": "seek", "position": 1000000000.001}"#, false),
        (#"{"cmd": "seek", "offset": -1000000000}"#, true), (#"{"cmd": "seek", "offset": 1000000000}"#, true),
        (#"{"cmd": "seek", "offset": -1000000000.001}"#, false), (#"{"cmd": "seek", "offset": 1000000000.001}"#, false),
        (#"{"cmd": "seek", "steps": 1000}"#, true), (#"{"cmd": "seek", "steps": -1000}"#, true),
        (#"{"cmd": "seek", "steps": 1001}"#, false), (#"{"cmd": "seek", "steps": -1001}"#, false),
        (#"{"cmd": "volume", "value": 0}"#, true), (#"{"cmd": "volume", "value": 1}"#, true),
        (#"{"cmd": "volume", "value": -0.0001}"#, false), (#"{"cmd": "volume", "value": 1.0001}"#, false),
        (#"{"cmd": "volume", "change": -1}"#, true), (#"{"cmd": "volume", "change": 1}"#, true),
        (#"{"cmd": "volume", "change": -1.0001}"#, false), (#"{"cmd": "volume", "change": 1.0001}"#, false),
    ])
    func theBoundsAreInclusive(_ json: String, _ accepted: Bool) throws {
        let request = try decode(json)
        if accepted {
            #expect(throws: Never.self) { try request.command() }
        } else {
            #expect(throws: ProtocolError.self) { try request.command() }
        }
    }

    @Test func theLimitsThemselves() {
        #expect(PlayerLimits.maxSleep == 604_800)
        #expect(PlayerLimits.nanoseconds(1e300) == 1_000_000_000 * 1_000_000_000)
        #expect(PlayerLimits.nanoseconds(-.infinity) == 0)
        #expect(PlayerLimits.nanoseconds(.nan) == 0)
        #expect(PlayerLimits.nanoseconds(1.5) == 1_500_000_000)
    }
}
