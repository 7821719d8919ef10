import ArgumentParser
import Foundation

struct SleepCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sleep",
        abstract: "Sleep timer: stop after a duration (fading out over the last 10 s), at the end of the item, or off.")
    @OptionGroup var options: PlayerClientOptions
    @Argument(help: "30m, 90s, 1h30m, 45 (minutes), 1:30:00, end-of-item, or off") var when: String

    func run() throws {
        try runReporting {
            let request: ControlRequest
            switch when.lowercased() {
            case "off": request = ControlRequest(cmd: "sleep", sleepMode: "off")
            case "end-of-item", "eoi": request = ControlRequest(cmd: "sleep", sleepMode: "end-of-item")
            default:
                guard let seconds = SleepTimer.parseDuration(when) else {
                    throw ValidationError("not a sleep duration: \(when) (use 30m, 90s, 1h30m, end-of-item or off)")
                }
                request = ControlRequest(cmd: "sleep", seconds: seconds)
            }
            let response = try options.send(request, autostart: false)
            if options.json, let status = response.status { return try StatusPrinter.print(status, json: true) }
            if let at = response.status?.sleepAt {
                print("sleep: playback stops at \(clockTime(at))")
            } else {
                print(when.lowercased() == "off" ? "sleep timer off" : "sleep: at the end of the item")
            }
        }
    }
}

/// `14:05` (local time) for a Unix time.
func clockTime(_ epoch: Int64) -> String {
    let f = DateFormatter()
    f.dateFormat = "HH:mm:ss"
    return f.string(from: Date(timeIntervalSince1970: TimeInterval(epoch)))
}
