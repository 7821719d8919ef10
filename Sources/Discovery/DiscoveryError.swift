/// Why a provider gave no results, in one line for a person (`itunes: timed out after 10 s`).
public struct DiscoveryError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }

    static func timedOut(after seconds: Double) -> DiscoveryError {
        DiscoveryError("timed out after \(seconds.formatted()) s")
    }
}

extension Double {
    /// 10 → "10", 0.25 → "0.25".
    func formatted() -> String {
        self == rounded() && abs(self) < 1e15 ? String(Int64(self)) : String(self)
    }
}
