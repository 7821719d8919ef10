import Foundation

/// Where the service's one-line notes go (the daemon's log). Injected, so a test can read them.
public typealias ServiceLog = @Sendable (String) -> Void
