import ArgumentParser
import FeedModel
import CLISupport
import ControlProtocol
import Foundation

struct SleepCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sleep",
        abstract: "Sleep timer: stop after a duration (fading out over the last 10 s), at the end of the item, or off.")
    @OptionGroup var options: PlayerClientOptions
    @Argument(parsing: .allUnrecognized, help: "30m, 90s, 1h30m, 45 (minutes), 1:30:00, end-of-item, or off")
    var words: [String] = []

    func run() throws {
        try runReporting {
            let when = try VerbValue.required(words, usage: "sleep takes one duration (30m, 90s, 1h30m), end-of-item or off")
            let setting: SleepSetting
            switch when.lowercased() {
            case "off": setting = .off
            case "end-of-item", "eoi": setting = .endOfItem
            default:
                guard let seconds = DurationArgument.seconds(when, bare: .minutes) else {
                    throw ValidationError("not a sleep duration: \(when) (use 30m, 90s, 1h30m, end-of-item or off)")
                }
                if let why = PlayerLimits.sleepRefusal(seconds) { throw ValidationError("\(why): \(when)") }
                setting = .after(seconds: seconds)
            }
            let response = try options.send(.sleep(setting), autostart: false)
            if options.json, let status = response.status { return try StatusPrinter.print(status, json: true) }
            if let at = response.status?.sleepAt {
                print("sleep: playback stops at \(StatusPrinter.sleepTime(at))")
            } else {
                print(when.lowercased() == "off" ? "sleep timer off" : "sleep: at the end of the item")
            }
        }
    }
}

struct SpeedCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "speed",
        abstract: "Playback speed, pitch kept: \(PlaybackSpeed.text(PlaybackSpeed.range.lowerBound))–\(PlaybackSpeed.text(PlaybackSpeed.range.upperBound)) in \(PlaybackSpeed.step) steps; a library item's channel remembers it. No RATE: print it.")
    @OptionGroup var options: PlayerClientOptions
    @Argument(parsing: .allUnrecognized, help: "1.5, 1.5x or 150%") var words: [String] = []

    func run() throws {
        try runReporting {
            let rate = try VerbValue.optional(words, usage: "speed takes one rate: 1.5, 1.5x or 150%")
            var value: Double?
            if let rate {
                value = Self.parse(rate)
                let range = PlaybackSpeed.range
                guard let v = value, v.isFinite, range.contains(v) else {
                    throw ValidationError("not a speed: \(rate) (use \(PlaybackSpeed.text(range.lowerBound))–\(PlaybackSpeed.text(range.upperBound)), e.g. 1.5 or 1.5x)")
                }
            }
            let response = try options.send(.speed(value), autostart: false)
            if options.json, let status = response.status { return try StatusPrinter.print(status, json: true) }
            if let message = response.message { print(message) }
            else { print("speed \(PlaybackSpeed.text(response.status?.rate ?? 1))×") }
        }
    }

    static func parse(_ text: String) -> Double? {
        let t = text.trimmingCharacters(in: .whitespaces).lowercased()
        if t.hasSuffix("%") { return Double(t.dropLast()).map { $0 / 100 } }
        if t.hasSuffix("x") || t.hasSuffix("×") { return Double(t.dropLast()) }
        return Double(t)
    }
}

struct ChaptersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chapters",
        abstract: "List the playing item's chapters (the podcast's chapters file, else the file's own), the current one marked *.")
    @OptionGroup var options: PlayerClientOptions

    func run() throws {
        try runReporting {
            let response = try options.send(.chapters, autostart: false)
            let payload = response.chapters ?? ChaptersPayload(source: nil, current: nil, chapters: [])
            if options.json { return try printJSON(payload) }
            guard !payload.chapters.isEmpty else {
                print(response.status?.status == .stopped ? "nothing is playing" : "no chapters")
                return
            }
            let width = String(payload.chapters.count).count
            for c in payload.chapters {
                let mark = c.index == payload.current ? "*" : " "
                let number = String(repeating: " ", count: width - String(c.index).count) + String(c.index)
                print("\(mark) \(number)  \(Formats.clock(c.start))  \(c.title)")
            }
        }
    }
}

struct ChapterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chapter", abstract: "Jump to the next or previous chapter, or to chapter N (as `chapters` numbers them).")
    @OptionGroup var options: PlayerClientOptions
    @Argument(parsing: .allUnrecognized, help: "next, prev or a chapter number") var words: [String] = []

    static let usage = "chapter takes next, prev or a chapter number (1, 2, …)"

    /// `next`, `prev`/`previous` or N ≥ 1.
    private static func chapterTarget(_ target: String) throws -> ChapterTarget {
        switch target.lowercased() {
        case "next": return .next
        case "prev", "previous": return .previous
        case let text:
            guard let n = Int(text), n >= 1 else { throw ValidationError(usage) }
            return .number(n)
        }
    }

    func run() throws {
        try runReporting {
            let target = try Self.chapterTarget(try VerbValue.required(words, usage: Self.usage))
            let response = try options.send(.chapter(target), autostart: false)
            if options.json, let status = response.status { return try StatusPrinter.print(status, json: true) }
            if let message = response.message { print(message) }
        }
    }
}
