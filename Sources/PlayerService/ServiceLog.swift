import Foundation

/// Where the service's one-line notes go (the daemon's log). Injected, so a test can read them.
public typealias ServiceLog = @Sendable (String) -> Void

/// A refusal the service reports in a reply, as one line.
struct ServiceError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
