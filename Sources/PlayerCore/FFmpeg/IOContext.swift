import CFFmpeg

/// An `AVIOContext` opened for reading (`avio_open2`); closed when dropped.
struct IOContext: ~Copyable {
    let raw: UnsafeMutablePointer<AVIOContext>

    /// Opens `location` with `options` (those it does not take stay in the dictionary); blocking
    /// reads give way when `interrupt` says so.
    init(reading location: String, interrupt: AVIOInterruptCB, options: inout OpaquePointer?) throws(FFmpegError) {
        var callback = interrupt // avio_open2 copies it
        var io: UnsafeMutablePointer<AVIOContext>?
        let rc = avio_open2(&io, location, AVIO_FLAG_READ, &callback, &options)
        guard rc >= 0, let io else { throw FFmpegError(function: "avio_open2", code: rc) }
        raw = io
    }

    deinit {
        var io: UnsafeMutablePointer<AVIOContext>? = raw
        avio_closep(&io)
    }
}
