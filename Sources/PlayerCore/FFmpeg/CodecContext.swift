import CFFmpeg

/// An `AVCodecContext` (`avcodec_alloc_context3`); freed when dropped.
struct CodecContext: ~Copyable {
    let raw: UnsafeMutablePointer<AVCodecContext>

    init(codec: UnsafePointer<AVCodec>) throws(FFmpegError) {
        guard let raw = avcodec_alloc_context3(codec) else { throw .outOfMemory("avcodec_alloc_context3") }
        self.raw = raw
    }

    deinit {
        var context: UnsafeMutablePointer<AVCodecContext>? = raw
        avcodec_free_context(&context)
    }
}
