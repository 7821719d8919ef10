import CFFmpeg

/// An `AVFormatContext` opened for input on an I/O context of ours. It owns that I/O: FFmpeg
/// does not close custom I/O, so dropping this closes the format context first (its demuxer may
/// still refer to the I/O while closing), then the I/O.
struct InputContext: ~Copyable {
    let raw: UnsafeMutablePointer<AVFormatContext>
    private let io: IOContext

    /// `avformat_open_input` on `io` with `demuxer` (nil: libavformat probes).
    init(opening location: String, io: consuming IOContext, demuxer: UnsafePointer<AVInputFormat>?,
         interrupt: AVIOInterruptCB, options: inout OpaquePointer?) throws(FFmpegError) {
        guard let allocated = avformat_alloc_context() else { throw .outOfMemory("avformat_alloc_context") }
        allocated.pointee.interrupt_callback = interrupt
        // Attached only after the caller sniffed and rewound it; with `pb` set before the open
        // FFmpeg treats it as custom I/O and never closes it itself.
        allocated.pointee.pb = io.raw
        var context: UnsafeMutablePointer<AVFormatContext>? = allocated
        let rc = avformat_open_input(&context, location, demuxer, &options) // frees the context on failure
        guard rc >= 0, let context else { throw FFmpegError(function: "avformat_open_input", code: rc) }
        raw = context
        self.io = io
    }

    deinit {
        var context: UnsafeMutablePointer<AVFormatContext>? = raw
        avformat_close_input(&context)
    }
}
