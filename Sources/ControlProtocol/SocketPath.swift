import Foundation

/// Where the daemon listens: `--socket`, else `FEEDCTL_SOCKET`, else
/// `$XDG_RUNTIME_DIR/feedctl/player.sock` (fallback `/tmp/feedctl-UID/player.sock`).
public enum SocketPath {
    public static func resolve(_ explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let explicit, !explicit.isEmpty { return explicit }
        if let env = environment["FEEDCTL_SOCKET"], !env.isEmpty { return env }
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty { return runtime + "/feedctl/player.sock" }
        return "/tmp/feedctl-\(getuid())/player.sock"
    }
}
