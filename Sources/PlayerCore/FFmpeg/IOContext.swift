import CFFmpeg

/// An `AVIOContext` for reading: opened on a location (`avio_open2`), or made over a
/// `RewindableStream`; closed (and freed) when dropped.
struct IOContext: ~Copyable {
    let raw: UnsafeMutablePointer<AVIOContext>
    /// What a context made over a stream reads from; the context's callbacks reach it through an
    /// unretained pointer, so this keeps it alive exactly as long as the context.
    private let stream: RewindableStream?

    /// Opens `location` with `options` (those it does not take stay in the dictionary); blocking
    /// reads give way when `interrupt` says so.
    init(reading location: String, interrupt: AVIOInterruptCB, options: inout OpaquePointer?) throws(FFmpegError) {
        var callback = interrupt // avio_open2 copies it
        var io: UnsafeMutablePointer<AVIOContext>?
        let rc = avio_open2(&io, location, AVIO_FLAG_READ, &callback, &options)
        guard rc >= 0, let io else { throw FFmpegError(function: "avio_open2", code: rc) }
        raw = io
        stream = nil
    }

    /// A context whose reads and seeks `stream` serves. It says it cannot seek (see
    /// `RewindableStream`), so FFmpeg reads forward itself and calls the stream only to go back.
    init(rewinding stream: RewindableStream) throws(FFmpegError) {
        let size: Int32 = 32 << 10
        guard let buffer = av_malloc(Int(size))?.assumingMemoryBound(to: UInt8.self) else {
            throw .outOfMemory("av_malloc")
        }
        let opaque = Unmanaged.passUnretained(stream).toOpaque()
        let context = avio_alloc_context(buffer, size, 0, opaque, { opaque, buffer, size in
            guard let opaque, let buffer else { return feedctl_AVERROR(EINVAL) }
            return Unmanaged<RewindableStream>.fromOpaque(opaque).takeUnretainedValue().read(into: buffer, size: size)
        }, nil, { opaque, offset, whence in
            guard let opaque else { return Int64(feedctl_AVERROR(EINVAL)) }
            return Unmanaged<RewindableStream>.fromOpaque(opaque).takeUnretainedValue().seek(offset: offset, whence: whence)
        })
        guard let context else {
            av_free(buffer)
            throw .outOfMemory("avio_alloc_context")
        }
        context.pointee.seekable = 0
        raw = context
        self.stream = stream
    }

    deinit {
        if stream == nil {
            var io: UnsafeMutablePointer<AVIOContext>? = raw
            avio_closep(&io)
        } else {
            // The buffer may have been replaced by FFmpeg; free the one the context has now.
            av_freep(&raw.pointee.buffer)
            var io: UnsafeMutablePointer<AVIOContext>? = raw
            avio_context_free(&io)
        }
    }
}
