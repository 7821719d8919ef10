import CFFmpeg

/// Converts decoded frames to interleaved 32-bit float stereo at the output rate (libswresample).
/// Re-initialises itself when the input format changes mid-stream. Owned by the decode thread.
final class Resampler {
    static let channels: Int32 = 2
    /// Everything is played at one rate so one PulseAudio stream serves every item.
    static let outputRate: Int32 = 48000
    let outputRate: Int32
    /// Made for the first frame and whenever the input format changes; dropped by `reset`.
    private var swr: ResampleContext?
    private var inputKey: (format: Int32, rate: Int32, channels: Int32) = (-1, 0, 0)
    /// Reused output buffer; `convert` returns how many frames of it are valid.
    private(set) var output: [Float] = []

    init(outputRate: Int32) { self.outputRate = outputRate }

    /// Forgets buffered samples (after a seek).
    func reset() {
        swr = nil
        inputKey = (-1, 0, 0)
    }

    /// Converts `frame`; returns the number of stereo frames now at the start of `output`.
    func convert(_ frame: UnsafeMutablePointer<AVFrame>, source: String) throws(PlayerError) -> Int {
        let f = frame.pointee
        let key = (f.format, f.sample_rate, f.ch_layout.nb_channels)
        if swr == nil || key != inputKey {
            swr = nil
            swr = try Self.context(for: frame, outputRate: outputRate, source: source)
            inputKey = key
        }
        guard let context = swr?.raw else { return 0 }
        let capacity = Int(swr_get_out_samples(context, f.nb_samples)) + 32
        if output.count < capacity * Int(Self.channels) {
            output = [Float](repeating: 0, count: capacity * Int(Self.channels))
        }
        let input = UnsafeMutableRawPointer(f.extended_data).map { $0.assumingMemoryBound(to: UnsafePointer<UInt8>?.self) }
        let converted = output.withUnsafeMutableBytes { raw -> Int32 in
            var out = raw.baseAddress?.assumingMemoryBound(to: UInt8.self)
            return swr_convert(context, &out, Int32(capacity), input, f.nb_samples)
        }
        guard converted >= 0 else {
            throw .cannotDecode(source: source, reason: "swr_convert: " + ffmpegMessage(converted))
        }
        return Int(converted)
    }

    private static func context(for frame: UnsafeMutablePointer<AVFrame>, outputRate: Int32,
                                source: String) throws(PlayerError) -> ResampleContext {
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
        do throws(FFmpegError) {
            let context = try ResampleContext(output: &outLayout, format: AV_SAMPLE_FMT_FLT, rate: outputRate,
                                              input: &inLayout, inputFormat: AVSampleFormat(frame.pointee.format),
                                              inputRate: frame.pointee.sample_rate)
            if frame.pointee.sample_rate != outputRate {
                // Half swr's default 32-tap filter: half the cost, still above PulseAudio's own
                // default resampler (speex-float-1), and speech/podcasts are the main content.
                try context.setInteger("filter_size", 16)
            }
            if inLayout.nb_channels == 1 {
                // Mono to both speakers at full level, as every player does (swr's default is -3 dB).
                try context.setMatrix([1, 1], stride: 1)
            }
            try context.initialize()
            return context
        } catch {
            throw .cannotDecode(source: source, reason: "swr_init: " + ffmpegMessage(error.code))
        }
    }
}
