#if canImport(Glibc)
import Glibc
#endif

/// Wall-clock seconds for the library (what `now:` parameters take), and a monotonic clock for
/// durations.
public enum Clock {
    public static func now() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec)
    }

    public static func monotonic() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
