import CFFmpeg
import CFFmpegLog

/// Demuxes and decodes the best audio stream of one source with libavformat/libavcodec.
/// Not thread-safe: owned by the player's decode thread. Blocking calls (open, read) return early
/// when the `InterruptFlag` fires; network reads also time out via `rw_timeout`.
final class Decoder {
    let source: MediaSource
    /// Seconds; nil when the container does not know (live streams).
    let duration: Double?
    let sampleRate: Int32
    /// Chapters the container carries (ID3 CHAP, MP4 chapter track, Ogg/Opus CHAPTERxxx comments).
    let chapters: [Chapter]
    /// The container's tags (title, artist, album, date), without cover art.
    let tags: MediaTags
    /// The picture the file carries, until the player takes it (`takeCoverArt`).
    private var coverArt: CoverArt?
    /// The decoded frame `nextFrame()` filled.
    var frame: UnsafeMutablePointer<AVFrame> { decoded.raw }

    // One owner per FFmpeg handle: each frees its handle when the decoder goes, or when `init`
    // throws after making it.
    private let input: InputContext
    private let codec: CodecContext
    private let packet: Packet
    private let decoded: Frame
    private let streamIndex: Int32
    private let timeBase: AVRational
    /// The container's start time in seconds (LAME MP3s start at ~0.025 s): positions are relative to it.
    private let startTime: Double
    private let interrupt: InterruptFlag
    private var draining = false
    /// `packet` holds a packet read by a seek, not yet decoded.
    private var primed = false
    /// Serves the seeks of a source whose server cannot seek; nil for all others.
    private let rewindable: RewindableStream?
    private var badPackets = 0

    /// FFmpeg's own logging goes to stderr; failures reach the user as PlayerError messages instead.
    /// FFmpeg prints nothing; its last error line per thread is kept for `reason`.
    private static let silenceLogs: Void = feedctl_ffmpeg_keep_error_lines()

    /// `rewindCache`: bytes kept for seeking back in a source whose server cannot seek.
    init(source: MediaSource, interrupt: InterruptFlag, timeout: Double,
         rewindCache: Int = PlayerConfiguration.defaultRewindCacheBytes) throws(PlayerError) {
        Self.silenceLogs
        self.source = source
        self.interrupt = interrupt
        let name = source.description
        func cannotOpen(_ reason: String) -> PlayerError { .cannotOpen(source: name, reason: reason) }
        do throws(FFmpegError) {
            packet = try Packet()
            decoded = try Frame()
        } catch {
            throw cannotOpen("out of memory")
        }
        let callback = AVIOInterruptCB(
            callback: { opaque in
                guard let opaque else { return 0 }
                return Unmanaged<InterruptFlag>.fromOpaque(opaque).takeUnretainedValue().shouldInterrupt ? 1 : 0
            },
            opaque: Unmanaged.passUnretained(interrupt).toOpaque())

        // The source's protocol options go to the I/O context; the whitelist also to the format
        // context, which applies it to anything a demuxer opens itself (playlists, references).
        var ioOptions: [(String, String)] = []
        var formatOptions: OpaquePointer?
        defer { av_dict_free(&formatOptions) }
        let location: String, whitelist: String, seeksCheaply: Bool
        switch source {
        case .remote(let url):
            (location, whitelist, seeksCheaply) = (url, MediaSource.remoteProtocols, false)
            ioOptions = [("rw_timeout", String(Int64(timeout * 1_000_000))), ("user_agent", "feedctl"),
                         // FFmpeg checks no certificate unless asked; the system's trust store, as the feed fetcher.
                         ("tls_verify", "1"),
                         // FFmpeg follows redirects without asking where they lead; the service
                         // follows them itself, each address checked (`MediaRedirects`), and hands
                         // over the final URL. One that redirects now is refused (EIO).
                         ("max_redirects", "0")]
        case .localFile(let path):
            // "file:" prefix: a path like "concat:x|y" must never be read as a protocol.
            (location, whitelist, seeksCheaply) = ("file:" + path, "file", true)
        }
        ioOptions.append(("protocol_whitelist", whitelist))
        av_dict_set(&formatOptions, "protocol_whitelist", whitelist, 0)
        interrupt.setDeadline(after: timeout)
        defer { interrupt.setDeadline(after: nil) }
        feedctl_ffmpeg_error_line_clear()

        /// What a failed open says: allocation failures as such, the rest as `reason` puts it.
        func failure(_ error: FFmpegError) -> PlayerError {
            let outOfMemory = ["avformat_alloc_context", "av_malloc", "avio_alloc_context"].contains(error.function)
            return cannotOpen(outOfMemory ? "out of memory" : Self.reason(error.code, interrupt))
        }
        let io: IOContext
        do throws(FFmpegError) {
            let connection = try RewindableStream.open(location, options: ioOptions, interrupt: callback)
            if case .remote = source, !RewindableStream.canSeek(connection.raw) {
                // A server without byte ranges: seeks are served by reading on or from a cache.
                let stream = RewindableStream(connection, location: location, options: ioOptions,
                                              interrupt: callback, cacheLimit: rewindCache)
                rewindable = stream
                io = try IOContext(rewinding: stream)
            } else {
                rewindable = nil
                io = connection
            }
        } catch {
            throw failure(error)
        }
        let demuxer = try Self.demuxer(sniffing: io.raw, seeksCheaply: seeksCheaply, source: name)
        do throws(FFmpegError) {
            input = try InputContext(opening: location, io: io, demuxer: demuxer, interrupt: callback,
                                     options: &formatOptions)
        } catch {
            throw failure(error)
        }
        let fmt = input.raw
        var rc = avformat_find_stream_info(fmt, nil)
        guard rc >= 0 else { throw cannotOpen(Self.reason(rc, interrupt)) }
        var decoder: UnsafePointer<AVCodec>?
        let index = av_find_best_stream(fmt, AVMEDIA_TYPE_AUDIO, -1, -1, &decoder, 0)
        guard index >= 0, let decoder, let stream = fmt.pointee.streams[Int(index)] else {
            throw cannotOpen(index >= 0 ? "no decoder for its audio" : "no audio stream")
        }
        // Cover art, video and chapter-text tracks are never read.
        for i in 0..<Int(fmt.pointee.nb_streams) where i != Int(index) {
            fmt.pointee.streams[i]?.pointee.discard = AVDISCARD_ALL
        }
        do throws(FFmpegError) {
            codec = try CodecContext(codec: decoder)
        } catch {
            throw cannotOpen("out of memory")
        }
        let cc = codec.raw
        rc = avcodec_parameters_to_context(cc, stream.pointee.codecpar)
        guard rc >= 0 else { throw cannotOpen(ffmpegMessage(rc)) }
        cc.pointee.pkt_timebase = stream.pointee.time_base
        rc = avcodec_open2(cc, decoder, nil)
        guard rc >= 0 else { throw cannotOpen("avcodec_open2: " + ffmpegMessage(rc)) }
        guard cc.pointee.sample_rate > 0 else { throw cannotOpen("audio stream has no sample rate") }
        streamIndex = index
        timeBase = stream.pointee.time_base
        sampleRate = cc.pointee.sample_rate
        let noPTS = feedctl_AV_NOPTS_VALUE()
        let start = fmt.pointee.start_time
        startTime = start == noPTS ? 0 : Double(start) / Double(AV_TIME_BASE)
        let d = fmt.pointee.duration
        duration = d == noPTS || d <= 0 ? nil : Double(d) / Double(AV_TIME_BASE)
        chapters = Self.chapters(of: fmt, startTime: startTime)
        tags = Self.tags(of: fmt, audio: stream)
        coverArt = Self.coverArt(of: fmt)
    }

    /// The cover art, once (the decoder then holds no copy).
    func takeCoverArt() -> CoverArt? {
        defer { coverArt = nil }
        return coverArt
    }

    /// The tags of the container, else of the audio stream (Ogg keeps its comments there); the
    /// first of each field's usual keys that has a value. File data: cleaned (`MediaTags.clean`).
    private static func tags(of fmt: UnsafeMutablePointer<AVFormatContext>,
                             audio: UnsafeMutablePointer<AVStream>) -> MediaTags {
        func value(_ keys: [String]) -> String? {
            for dictionary in [fmt.pointee.metadata, audio.pointee.metadata] {
                for key in keys {
                    // Case-insensitive: Vorbis comments are upper case (TITLE), ID3's are mapped to lower.
                    guard let entry = av_dict_get(dictionary, key, nil, 0), let raw = entry.pointee.value else { continue }
                    if let text = MediaTags.clean(String(cString: raw)) { return text }
                }
            }
            return nil
        }
        return MediaTags(title: value(["title"]), artist: value(["artist", "album_artist", "author"]),
                         album: value(["album"]), date: value(["date", "year"]))
    }

    /// The first attached picture in a format desktops show (JPEG, PNG), as the demuxer read it
    /// with the header (it stays in the stream's `attached_pic` although the stream is discarded).
    private static func coverArt(of fmt: UnsafeMutablePointer<AVFormatContext>) -> CoverArt? {
        for i in 0..<Int(fmt.pointee.nb_streams) {
            guard let stream = fmt.pointee.streams[i]?.pointee,
                  stream.disposition & AV_DISPOSITION_ATTACHED_PIC != 0 else { continue }
            let fileExtension: String
            switch stream.codecpar?.pointee.codec_id {
            case AV_CODEC_ID_MJPEG: fileExtension = "jpg"
            case AV_CODEC_ID_PNG: fileExtension = "png"
            default: continue
            }
            let picture = stream.attached_pic
            guard let data = picture.data, picture.size > 0, Int(picture.size) <= CoverArtFile.maxBytes else { continue }
            return CoverArt(bytes: Array(UnsafeBufferPointer(start: data, count: Int(picture.size))),
                            fileExtension: fileExtension)
        }
        return nil
    }

    /// The container's chapters on the position scale (relative to its start time). File data:
    /// bounded in count and title length, untitled ones numbered.
    private static func chapters(of fmt: UnsafeMutablePointer<AVFormatContext>, startTime: Double) -> [Chapter] {
        guard let list = fmt.pointee.chapters else { return [] }
        var out: [Chapter] = []
        for i in 0..<min(Int(fmt.pointee.nb_chapters), 5000) {
            guard let chapter = list[i]?.pointee else { continue }
            let base = av_q2d(chapter.time_base)
            let start = Double(chapter.start) * base - startTime
            let end = Double(chapter.end) * base - startTime
            guard start.isFinite else { continue }
            var title = ""
            if let entry = av_dict_get(chapter.metadata, "title", nil, 0), let value = entry.pointee.value {
                title = String(String(cString: value).prefix(300))
            }
            out.append(Chapter(start: max(0, start), end: end.isFinite && end > start ? end : nil,
                               title: title.isEmpty ? "Chapter \(i + 1)" : title))
        }
        return out
    }

    /// The demuxer the first bytes of `io` name (see `ContainerSniffer`), or nil to let
    /// libavformat probe. Reads at most what fits in the I/O buffer and rewinds within it, so a
    /// stream that cannot seek is read once; looks past an ID3 tag only where seeking is cheap.
    /// Leaves `io` at its start, or throws.
    private static func demuxer(sniffing io: UnsafeMutablePointer<AVIOContext>, seeksCheaply: Bool,
                                source: String) throws(PlayerError) -> UnsafePointer<AVInputFormat>? {
        var sample = [UInt8](repeating: 0, count: min(4096, Int(io.pointee.buffer_size)))
        func read(_ count: Int) -> Int {
            Int(sample.withUnsafeMutableBufferPointer { avio_read(io, $0.baseAddress, Int32(count)) })
        }
        func sniff(_ count: Int, _ look: (UnsafeRawBufferPointer) -> ContainerSniffer.Verdict) -> ContainerSniffer.Verdict {
            count > 0 ? sample.withUnsafeBytes { look(UnsafeRawBufferPointer(rebasing: $0[..<count])) } : .unknown
        }
        let first = read(sample.count)
        // Nothing at all: say so (the probe's word for it was "Invalid argument").
        if first <= 0, avio_feof(io) != 0, io.pointee.error == 0 {
            throw .cannotOpen(source: source, reason: seeksCheaply ? "the file is empty (0 bytes)" : "the server sent no data (0 bytes)")
        }
        // A failed read gives .unknown: the probe then reports it.
        var verdict = sniff(first, ContainerSniffer.sniff(_:))
        if case .tagEndsAt(let offset) = verdict {
            verdict = .unknown
            if seeksCheaply, avio_seek(io, Int64(offset), SEEK_SET) == Int64(offset) {
                verdict = sniff(read(16), ContainerSniffer.sniff(after:))
            }
        }
        guard avio_seek(io, 0, SEEK_SET) == 0 else {
            throw .cannotOpen(source: source, reason: "can't go back to the start after reading its first bytes")
        }
        guard case .format(let name) = verdict else { return nil }
        return av_find_input_format(name)
    }

    /// Why an open failed: the error code's text; for a bare I/O error, with the line FFmpeg logged
    /// about it ("Input/output error (Peer certificate failed verification)" for an untrusted
    /// certificate). Other codes already say what happened.
    private static func reason(_ rc: Int32, _ interrupt: InterruptFlag) -> String {
        if rc == feedctl_AVERROR_EXIT() { return interrupt.isAborted ? "cancelled" : "timed out" }
        guard rc == feedctl_AVERROR(EIO) else { return ffmpegMessage(rc) }
        var logged = String(cString: feedctl_ffmpeg_error_line())
        while logged.last?.isWhitespace == true { logged.removeLast() }
        return logged.isEmpty ? ffmpegMessage(rc) : "\(ffmpegMessage(rc)) (\(logged))"
    }

    /// Decodes the next audio frame into `frame`. Returns false at the end of the stream.
    /// Corrupt packets are skipped (as players do); many in a row end playback with an error.
    func nextFrame() throws(PlayerError) -> Bool {
        let codec = codec.raw, format = input.raw, packet = packet.raw, frame = decoded.raw
        while true {
            let rc = avcodec_receive_frame(codec, frame)
            if rc == 0 { badPackets = 0; return true }
            if rc == feedctl_AVERROR_EOF() { return false }
            if rc != feedctl_AVERROR_EAGAIN() {
                throw .cannotDecode(source: source.description, reason: ffmpegMessage(rc))
            }
            if draining { return false }
            // A packet a seek read ahead (`primePacket`) comes first.
            let read = primed ? 0 : av_read_frame(format, packet)
            primed = false
            if read < 0 {
                if read == feedctl_AVERROR_EOF() || (format.pointee.pb != nil && avio_feof(format.pointee.pb) != 0) {
                    draining = true
                    avcodec_send_packet(codec, nil)
                    continue
                }
                throw .cannotDecode(source: source.description, reason: Self.reason(read, interrupt))
            }
            defer { av_packet_unref(packet) }
            guard packet.pointee.stream_index == streamIndex else { continue }
            let sent = avcodec_send_packet(codec, packet)
            if sent < 0 && sent != feedctl_AVERROR_EAGAIN() {
                badPackets += 1
                if badPackets > 50 {
                    throw .cannotDecode(source: source.description, reason: ffmpegMessage(sent))
                }
            }
        }
    }

    /// The current frame's start in seconds from the start of the item, if it has a timestamp.
    var framePosition: Double? {
        let pts = decoded.raw.pointee.best_effort_timestamp
        guard pts != feedctl_AV_NOPTS_VALUE() else { return nil }
        return Double(pts) * av_q2d(timeBase) - startTime
    }

    /// Seeks to `seconds` (from the start of the item), landing on or before it; the caller trims
    /// decoded audio that starts before the target. `current` is the media time decoding has
    /// reached: where the decoder is put back when the seek cannot be made (see `restore`).
    func seek(to seconds: Double, from current: Double) throws(PlayerError) {
        let pb = input.raw.pointee.pb
        let before = pb.map { avio_tell($0) } ?? -1
        // While a seek on a source whose server cannot seek runs, the bytes playback came from
        // stay in its cache, so a failed seek can go back to them.
        rewindable?.pin(before)
        defer { rewindable?.unpin() }
        do throws(PlayerError) {
            try moveDemuxer(to: seconds)
        } catch {
            // A demuxer that searched (Ogg bisects) may have read elsewhere before failing.
            if let pb, before >= 0 { avio_seek(pb, before, SEEK_SET) }
            throw error
        }
        if rewindable != nil {
            do throws(PlayerError) {
                // MP4 moves its reader only when the next packet is read: read it now, so a
                // seek that cannot be made fails here, not as a decoding error afterwards.
                try primePacket()
            } catch {
                primed = false
                restore(to: current, bytes: before)
                throw error
            }
        }
        avcodec_flush_buffers(codec.raw)
        draining = false
    }

    /// `avformat_seek_file`, else `av_seek_frame` backwards, to `seconds`.
    private func moveDemuxer(to seconds: Double) throws(PlayerError) {
        let format = input.raw
        // Bounded so the conversion to FFmpeg's microseconds cannot trap (a trillion seconds is
        // past the end of anything).
        let ts = Int64(min(max(0, seconds) + startTime, 1e12) * Double(AV_TIME_BASE))
        var rc = avformat_seek_file(format, -1, Int64.min, ts, ts, 0)
        if rc < 0 { rc = av_seek_frame(format, -1, ts, AVSEEK_FLAG_BACKWARD) }
        guard rc >= 0 else { throw cannotSeek(rc) }
    }

    /// A failed seek, with the source's own cause when it knows one.
    private func cannotSeek(_ rc: Int32) -> PlayerError {
        .cannotSeek(source: source.description, reason: Self.reason(rewindable?.lastFailure ?? rc, interrupt))
    }

    /// Reads the first packet at the new place into `packet` for `nextFrame`; the end of the
    /// stream is no failure (a seek near the end).
    private func primePacket() throws(PlayerError) {
        let rc = av_read_frame(input.raw, packet.raw)
        if rc >= 0 { primed = true; return }
        if rc == feedctl_AVERROR_EOF() { return }
        throw cannotSeek(rc)
    }

    /// Puts a demuxer whose seek could not be completed back where decoding was: by time
    /// (MP4, whose reader follows its sample index), else at the byte it was reading.
    private func restore(to seconds: Double, bytes: Int64) {
        do throws(PlayerError) {
            try moveDemuxer(to: seconds)
            try primePacket()
        } catch {
            primed = false
            if let pb = input.raw.pointee.pb, bytes >= 0 { avio_seek(pb, bytes, SEEK_SET) }
        }
    }
}
