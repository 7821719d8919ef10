import CFFmpeg

/// An `AVFrame` (`av_frame_alloc`), reused for every frame; freed (with any buffer it still
/// references) when dropped.
struct Frame: ~Copyable {
    let raw: UnsafeMutablePointer<AVFrame>

    init() throws(FFmpegError) {
        guard let raw = av_frame_alloc() else { throw .outOfMemory("av_frame_alloc") }
        self.raw = raw
    }

    deinit {
        var frame: UnsafeMutablePointer<AVFrame>? = raw
        av_frame_free(&frame)
    }
}
