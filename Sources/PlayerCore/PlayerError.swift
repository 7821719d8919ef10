import CFFmpeg

/// Everything that can go wrong in PlayerCore, each with a one-line message for a person.
public enum PlayerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The source could not be opened or has no playable audio.
    case cannotOpen(source: String, reason: String)
    /// Decoding failed part-way.
    case cannotDecode(source: String, reason: String)
    /// A seek the source could not make (the item plays on from where it was).
    case cannotSeek(source: String, reason: String)
    /// The URL's scheme is not allowed (only http/https; local files only when the user names them).
    case refused(source: String, reason: String)
    /// No PulseAudio server reachable, or it went away.
    case pulseUnavailable(reason: String)
    /// The PulseAudio stream failed.
    case audioOutput(reason: String)

    public var description: String {
        switch self {
        case .cannotOpen(let s, let r): "can't open \"\(s)\": \(r)"
        case .cannotDecode(let s, let r): "can't decode \"\(s)\": \(r)"
        case .cannotSeek(let s, let r): "can't seek in \"\(s)\": \(r)"
        case .refused(let s, let r): "refusing \"\(s)\": \(r)"
        case .pulseUnavailable(let r):
            // Where to go from here: the daemon needs a sound server of the user's own.
            "cannot reach PulseAudio (PULSE_SERVER / $XDG_RUNTIME_DIR/pulse/native): \(r); PulseAudio or pipewire-pulse must run "
                + "for this user (on a machine without sound, `scripts/headless-pulse.sh start DIR` starts one with a null sink)"
        case .audioOutput(let r): "audio output failed: \(r)"
        }
    }
}

/// FFmpeg's message for an error code, e.g. "Invalid data found when processing input".
func ffmpegMessage(_ code: Int32) -> String {
    var buffer = [CChar](repeating: 0, count: 256)
    _ = feedctl_av_strerror(code, &buffer, buffer.count)
    return buffer.withUnsafeBufferPointer { ptr in
        guard let base = ptr.baseAddress else { return "error \(code)" }
        return String(cString: base)
    }
}
