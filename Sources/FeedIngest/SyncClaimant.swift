import Foundation
import Synchronization

/// Who holds a poll's claim (`PollStore`): one sync in one process, by host, pid, a random part
/// (a pid reused after a crash is another claimant) and a count. Claims stop two pollers, in
/// this process or another, on this machine or another (workers, the daemon, the server's
/// scheduler and its API calls, a cron `sync`), from fetching the same feed at once.
public enum SyncClaimant {
    private static let process = "\(hostName) pid \(ProcessInfo.processInfo.processIdentifier) \(UUID().uuidString.prefix(8))"
    private static let syncs = Atomic<Int>(0)

    /// This machine's name, as `gethostname` has it (no lookup).
    private static var hostName: String {
        var name = [CChar](repeating: 0, count: 256)
        guard gethostname(&name, name.count - 1) == 0 else { return "localhost" }
        return String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A claimant of its own for one sync (or one scheduler round): two syncs in one process
    /// must not share a claim either.
    public static func next() -> String {
        "\(process) #\(syncs.add(1, ordering: .relaxed).newValue)"
    }
}
