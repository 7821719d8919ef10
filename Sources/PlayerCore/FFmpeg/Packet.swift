import CFFmpeg

/// An `AVPacket` (`av_packet_alloc`), reused for every read; freed when dropped.
struct Packet: ~Copyable {
    let raw: UnsafeMutablePointer<AVPacket>

    init() throws(FFmpegError) {
        guard let raw = av_packet_alloc() else { throw .outOfMemory("av_packet_alloc") }
        self.raw = raw
    }

    deinit {
        var packet: UnsafeMutablePointer<AVPacket>? = raw
        av_packet_free(&packet)
    }
}
