import Dispatch
import Synchronization

/// Lets another thread (or a deadline) make a blocking FFmpeg call return with AVERROR_EXIT.
/// FFmpeg polls it through `AVIOInterruptCB` from inside its I/O loops.
final class InterruptFlag: Sendable {
    private let aborted = Atomic<Bool>(false)
    /// Monotonic nanoseconds after which blocking calls give up; 0 means no deadline.
    private let deadline = Atomic<UInt64>(0)

    func abort() { aborted.store(true, ordering: .relaxed) }
    var isAborted: Bool { aborted.load(ordering: .relaxed) }

    /// Bounds the next blocking phase (opening a URL) to `seconds`; `nil` removes the bound.
    func setDeadline(after seconds: Double?) {
        let value = seconds.map { DispatchTime.now().uptimeNanoseconds + UInt64(min(max(0, $0), 1e9) * 1e9) } ?? 0
        deadline.store(value, ordering: .relaxed)
    }

    var shouldInterrupt: Bool {
        if isAborted { return true }
        let d = deadline.load(ordering: .relaxed)
        return d != 0 && DispatchTime.now().uptimeNanoseconds > d
    }
}
