import CFFmpeg

/// A failed FFmpeg call: the function and its negative return code (`AVERROR(ENOMEM)` for an
/// allocation that returned NULL). The handle owners throw it; their callers turn it into the
/// `PlayerError` a person reads, since only they know which source it was about.
struct FFmpegError: Error, Sendable, Equatable {
    let function: String
    let code: Int32

    static func outOfMemory(_ function: String) -> FFmpegError {
        FFmpegError(function: function, code: feedctl_AVERROR(ENOMEM))
    }
}
