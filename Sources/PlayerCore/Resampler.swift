import CFFmpeg

/// Converts decoded frames to interleaved 32-bit float stereo at the output rate (libswresample).
/// Re-initialises itself when the input format changes mid-stream. Owned by the decode thread.
final class Resampler {
    static let channels: Int32 = 2
    /// Everything is played at one rate so one PulseAudio stream serves every item.
    static let outputRate: Int32 = 48000
    let outputRate: Int32
    private var swr: OpaquePointer?
    private var inputKey: (format: Int32, rate: Int32, channels: Int32) = (-1, 0, 0)
    /// Reused output buffer; `convert` returns how many frames of it are valid.
    private(set) var output: [Float] = []

    init(outputRate: Int32) { self.outputRate = outputRate }

    deinit { swr_free(&swr) }

    /// Forgets buffered samples (after a seek).
    func reset() {
        swr_free(&swr)
        inputKey = (-1, 0, 0)
    }

    /// Converts `frame`; returns the number of stereo frames now at the start of `output`.
    func convert(_ frame: UnsafeMutablePointer<AVFrame>, source: String) throws(PlayerError) -> Int {
        let f = frame.pointee
        let key = (f.format, f.sample_rate, f.ch_layout.nb_channels)
        if swr == nil || key != inputKey {
            try configure(frame, source: source)
            inputKey = key
        }
        let capacity = Int(swr_get_out_samples(swr, f.nb_samples)) + 32
        if output.count < capacity * Int(Self.channels) {
            output = [Float](repeating: 0, count: capacity * Int(Self.channels))
        }
        let input = UnsafeMutableRawPointer(f.extended_data).map { $0.assumingMemoryBound(to: UnsafePointer<UInt8>?.self) }
        let converted = output.withUnsafeMutableBytes { raw -> Int32 in
            var out = raw.baseAddress?.assumingMemoryBound(to: UInt8.self)
            return swr_convert(swr, &out, Int32(capacity), input, f.nb_samples)
        }
        guard converted >= 0 else {
            throw .cannotDecode(source: source, reason: "swr_convert: " + ffmpegMessage(converted))
        }
        return Int(converted)
    }

    private func configure(_ frame: UnsafeMutablePointer<AVFrame>, source: String) throws(PlayerError) {
        swr_free(&swr)
        var inLayout = AVChannelLayout()
        if frame.pointee.ch_layout.order == AV_CHANNEL_ORDER_UNSPEC || frame.pointee.ch_layout.nb_channels == 0 {
            av_channel_layout_default(&inLayout, max(1, frame.pointee.ch_layout.nb_channels))
        } else {
            av_channel_layout_copy(&inLayout, &frame.pointee.ch_layout)
        }
        defer { av_channel_layout_uninit(&inLayout) }
        var outLayout = AVChannelLayout()
        av_channel_layout_default(&outLayout, Self.channels)
        defer { av_channel_layout_uninit(&outLayout) }
        var rc = swr_alloc_set_opts2(&swr, &outLayout, AV_SAMPLE_FMT_FLT, outputRate,
                                     &inLayout, AVSampleFormat(frame.pointee.format), frame.pointee.sample_rate,
                                     0, nil)
        if rc >= 0 && frame.pointee.sample_rate != outputRate {
            // Half swr's default 32-tap filter: half the cost, still above PulseAudio's own
            // default resampler (speex-float-1), and speech/podcasts are the main content.
            rc = av_opt_set_int(UnsafeMutableRawPointer(swr), "filter_size", 16, 0)
        }
        if rc >= 0 && inLayout.nb_channels == 1 {
            // Mono to both speakers at full level, as every player does (swr's default is -3 dB).
            var matrix: [Double] = [1, 1]
            rc = swr_set_matrix(swr, &matrix, 1)
        }
        if rc >= 0 { rc = swr_init(swr) }
        guard rc >= 0 else {
            swr_free(&swr)
            throw .cannotDecode(source: source, reason: "swr_init: " + ffmpegMessage(rc))
        }
    }
}
