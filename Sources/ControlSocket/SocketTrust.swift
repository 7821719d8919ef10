#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// What the CLI checks before it talks to a socket, as tmux does: the directory is the user's
/// own and closed to others (0700), and the socket in it is the user's. Without this, another
/// user who pre-created `/tmp/feedctl-UID` (used when XDG_RUNTIME_DIR is unset) received the
/// victim's requests and answered with spoofed status.
public enum SocketTrust {
    public static func check(_ path: String) throws(SocketError) {
        let dir = (path as NSString).deletingLastPathComponent
        let me = getuid()
        var st = stat()
        if lstat(dir, &st) == 0 {
            guard st.st_mode & S_IFMT == S_IFDIR else {
                throw SocketError(description: "refusing to use the control socket in \(dir): it is not a directory")
            }
            guard st.st_uid == me else {
                throw SocketError(description: "refusing to use the control socket in \(dir): it belongs to uid \(st.st_uid), not to you (uid \(me)); remove it or set XDG_RUNTIME_DIR")
            }
            guard st.st_mode & 0o077 == 0 else {
                throw SocketError(description: "refusing to use the control socket in \(dir): other users can reach it (mode \(String(st.st_mode & 0o777, radix: 8))); it must be 0700")
            }
        }
        if lstat(path, &st) == 0 {
            guard st.st_mode & S_IFMT == S_IFSOCK else {
                throw SocketError(description: "refusing to use \(path): it is not a socket")
            }
            guard st.st_uid == me else {
                throw SocketError(description: "refusing to use \(path): it belongs to uid \(st.st_uid), not to you (uid \(me))")
            }
        }
    }
}
