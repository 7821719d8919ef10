import CFFmpeg

/// Changes tempo without changing pitch: libavfilter's `atempo` (WSOLA) in a three-node graph
/// (abuffer → atempo → abuffersink) on interleaved float stereo at the output rate.
/// Owned by the decode thread. Only used while the speed is not 1: at 1× audio bypasses it, and
/// libavfilter is only loaded (`AVFilterLibrary`) when the first one is made.
final class TimeStretch {
    /// The tempos one `atempo` can do (FFmpeg 5.1). Which speeds people may choose is a product
    /// rule (FeedModel's `PlaybackSpeed`), decided by the caller; this only keeps the filter working.
    static let tempos: ClosedRange<Double> = 0.5...100

    /// `value` within `tempos`; 1 when not a finite number.
    static func tempo(_ value: Double) -> Double {
        value.isFinite ? min(tempos.upperBound, max(tempos.lowerBound, value)) : 1
    }

    private let lib: AVFilterLibrary
    /// Owns the three filters; `source` and `sink` point into it.
    private let graph: FilterGraph
    private let source: UnsafeMutablePointer<AVFilterContext>
    private let sink: UnsafeMutablePointer<AVFilterContext>
    private let buffer: Frame
    private let rate: Int32
    private var nextPTS: Int64 = 0
    private(set) var tempo: Double

    init(rate: Int32, tempo: Double) throws(PlayerError) {
        self.rate = rate
        self.tempo = tempo
        let lib = try AVFilterLibrary.shared()
        self.lib = lib
        do throws(FFmpegError) {
            graph = try FilterGraph(lib)
            buffer = try Frame()
        } catch {
            throw Self.failure("out of memory")
        }
        let graph = self.graph.raw
        // One thread: the stage is cheap, and the decode thread is the only one that should work.
        graph.pointee.nb_threads = 1
        var src: UnsafeMutablePointer<AVFilterContext>?
        var tempoNode: UnsafeMutablePointer<AVFilterContext>?
        var snk: UnsafeMutablePointer<AVFilterContext>?
        let args = "sample_rate=\(rate):sample_fmt=flt:channel_layout=stereo:time_base=1/\(rate)"
        var rc = lib.createFilter(&src, lib.getByName("abuffer"), "in", args, nil, graph)
        if rc >= 0 {
            rc = lib.createFilter(&tempoNode, lib.getByName("atempo"), "tempo",
                                              "tempo=\(Self.format(tempo))", nil, graph)
        }
        if rc >= 0 { rc = lib.createFilter(&snk, lib.getByName("abuffersink"), "out", nil, nil, graph) }
        if rc >= 0 { rc = lib.link(src, 0, tempoNode, 0) }
        if rc >= 0 { rc = lib.link(tempoNode, 0, snk, 0) }
        if rc >= 0 { rc = lib.graphConfig(graph, nil) }
        guard rc >= 0, let src, let snk else {
            throw Self.failure(ffmpegMessage(rc >= 0 ? feedctl_AVERROR(EINVAL) : rc))
        }
        self.source = src
        self.sink = snk
    }

    private static func failure(_ reason: String) -> PlayerError {
        .audioOutput(reason: "speed filter (atempo): " + reason)
    }

    private static func format(_ tempo: Double) -> String { String(describing: tempo) }

    /// Changes the tempo in place: audio already inside the filter keeps flowing, no gap.
    func setTempo(_ value: Double) throws(PlayerError) {
        guard value != tempo else { return }
        var response = [CChar](repeating: 0, count: 64)
        let rc = lib.sendCommand(graph.raw, "tempo", "tempo", Self.format(value), &response, 64, 0)
        guard rc >= 0 else { throw Self.failure(ffmpegMessage(rc)) }
        tempo = value
    }

    /// Feeds interleaved stereo floats and appends whatever the filter has ready to `output`.
    func process(_ samples: ArraySlice<Float>, into output: inout [Float]) throws(PlayerError) {
        let channels = Int(Resampler.channels)
        let count = samples.count / channels
        guard count > 0 else { return }
        let frame = buffer.raw
        frame.pointee.nb_samples = Int32(count)
        frame.pointee.format = AV_SAMPLE_FMT_FLT.rawValue
        frame.pointee.sample_rate = rate
        av_channel_layout_default(&frame.pointee.ch_layout, Resampler.channels)
        frame.pointee.pts = nextPTS
        nextPTS += Int64(count)
        var rc = av_frame_get_buffer(frame, 0)
        guard rc >= 0, let data = frame.pointee.data.0 else {
            av_frame_unref(frame)
            throw Self.failure(ffmpegMessage(rc))
        }
        samples.withUnsafeBytes { bytes in
            if let base = bytes.baseAddress { UnsafeMutableRawPointer(data).copyMemory(from: base, byteCount: bytes.count) }
        }
        rc = lib.bufferSourceAddFrame(source, frame) // takes the frame's buffer, leaves it blank
        av_frame_unref(frame)
        guard rc >= 0 else { throw Self.failure(ffmpegMessage(rc)) }
        try drain(into: &output)
    }

    /// Ends the input and appends everything still inside the filter.
    func finish(into output: inout [Float]) throws(PlayerError) {
        let rc = lib.bufferSourceAddFrame(source, nil)
        guard rc >= 0 else { throw Self.failure(ffmpegMessage(rc)) }
        try drain(into: &output)
    }

    private func drain(into output: inout [Float]) throws(PlayerError) {
        let frame = buffer.raw
        while true {
            let rc = lib.bufferSinkGetFrame(sink, frame)
            if rc == feedctl_AVERROR_EAGAIN() || rc == feedctl_AVERROR_EOF() { return }
            guard rc >= 0 else { throw Self.failure(ffmpegMessage(rc)) }
            defer { av_frame_unref(frame) }
            let floats = Int(frame.pointee.nb_samples) * Int(Resampler.channels)
            guard frame.pointee.format == AV_SAMPLE_FMT_FLT.rawValue, floats > 0,
                  let data = frame.pointee.data.0 else { continue }
            let typed = UnsafeRawPointer(data).assumingMemoryBound(to: Float.self)
            output.append(contentsOf: UnsafeBufferPointer(start: typed, count: floats))
        }
    }
}
