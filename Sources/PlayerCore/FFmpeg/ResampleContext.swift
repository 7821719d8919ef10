import CFFmpeg

/// A libswresample `SwrContext` (`swr_alloc_set_opts2`); freed when dropped. Configure it with
/// the setters, then `initialize()`; a failing step throws and the caller drops it.
struct ResampleContext: ~Copyable {
    let raw: OpaquePointer

    init(output: inout AVChannelLayout, format: AVSampleFormat, rate: Int32,
         input: inout AVChannelLayout, inputFormat: AVSampleFormat, inputRate: Int32) throws(FFmpegError) {
        var context: OpaquePointer?
        // On failure it frees what it allocated.
        let rc = swr_alloc_set_opts2(&context, &output, format, rate, &input, inputFormat, inputRate, 0, nil)
        guard rc >= 0, let context else { throw FFmpegError(function: "swr_alloc_set_opts2", code: rc) }
        raw = context
    }

    deinit {
        var context: OpaquePointer? = raw
        swr_free(&context)
    }

    func setInteger(_ name: String, _ value: Int64) throws(FFmpegError) {
        let rc = av_opt_set_int(UnsafeMutableRawPointer(raw), name, value, 0)
        guard rc >= 0 else { throw FFmpegError(function: "av_opt_set_int", code: rc) }
    }

    /// `matrix[out * stride + in]`: the gain of each input channel in each output channel.
    func setMatrix(_ matrix: [Double], stride: Int32) throws(FFmpegError) {
        let rc = matrix.withUnsafeBufferPointer { swr_set_matrix(raw, $0.baseAddress, stride) }
        guard rc >= 0 else { throw FFmpegError(function: "swr_set_matrix", code: rc) }
    }

    func initialize() throws(FFmpegError) {
        let rc = swr_init(raw)
        guard rc >= 0 else { throw FFmpegError(function: "swr_init", code: rc) }
    }
}
