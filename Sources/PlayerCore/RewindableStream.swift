import CFFmpeg

/// Makes an HTTP source whose server cannot seek (no byte ranges: `python3 -m http.server`, and
/// many hosts for some files) seekable for the demuxer, as mpv's cache makes it for mpv.
///
/// FFmpeg's HTTP protocol refuses any seek to a nonzero offset on such a server (ENOSYS), so every
/// demuxer's seek failed in its own way (Ogg "Function not implemented", MP4 "Invalid data", MP3
/// silently staying put). This sits between the demuxer and the HTTP connection as the demuxer's
/// I/O (`IOContext(rewinding:)`) and serves any byte offset:
/// - **forward**, by reading on: the bytes in between are read and dropped into the cache;
/// - **backward**, from a cache of the last `cacheLimit` bytes read when the offset is still in
///   it (a few minutes of a podcast: every "-15 s" is instant), else by opening the URL again
///   and reading forward to it.
///
/// Why bytes and not packets (mpv caches demuxed packets): below the demuxer one piece of code
/// serves every container, including seeks a demuxer makes itself (Ogg's bisection, MP4's
/// sample index), and the decoder's own seek path stays the one local files use. The cost of a
/// backward jump beyond the cache is downloading the start of the file again, which is what a
/// server without ranges leaves. Memory is bounded by `cacheLimit`.
///
/// The context it makes says it is not seekable, so demuxers open it as a stream (the MP3
/// demuxer does not read the end of the file for an ID3v1 tag before playing): FFmpeg's
/// `avio_seek` then reads forward through it itself and calls `seek` only to go back.
///
/// Decode-thread only, like the decoder that owns it.
final class RewindableStream {
    private let location: String
    private let options: [(String, String)]
    private let interrupt: AVIOInterruptCB
    private let cacheLimit: Int
    /// The connection: its next byte is at `cacheEnd`.
    private var inner: IOContext
    /// Bytes `cacheStart..<cacheEnd` of the source, the last ones read.
    private var cache: [UInt8] = []
    private var cacheStart: Int64 = 0
    private var cacheEnd: Int64 { cacheStart + Int64(cache.count) }
    /// The offset the demuxer reads next.
    private var position: Int64 = 0
    /// Bytes from here on are kept (up to `pinLimit`) while a seek runs, to go back to on failure.
    private var pinned: Int64?
    /// A pin gives way past this much cache: memory stays bounded whatever a seek reads.
    private var pinLimit: Int { cacheLimit * 3 }
    /// Why the last move failed since `pin` (opening the URL again, reading on): the cause a
    /// demuxer may report only as "Invalid data" (MP4 after a failed seek of its reader).
    private(set) var lastFailure: Int32?

    /// Takes over `connection`, opened on `location` with `options` (each applied again when it
    /// opens the URL anew).
    init(_ connection: consuming IOContext, location: String, options: [(String, String)],
         interrupt: AVIOInterruptCB, cacheLimit: Int = PlayerConfiguration.defaultRewindCacheBytes) {
        inner = connection
        self.location = location
        self.options = options
        self.interrupt = interrupt
        self.cacheLimit = max(64 << 10, cacheLimit)
    }

    /// Opens `location` for reading with `options`.
    static func open(_ location: String, options: [(String, String)],
                     interrupt: AVIOInterruptCB) throws(FFmpegError) -> IOContext {
        var dictionary: OpaquePointer?
        defer { av_dict_free(&dictionary) }
        for (key, value) in options { av_dict_set(&dictionary, key, value, 0) }
        return try IOContext(reading: location, interrupt: interrupt, options: &dictionary)
    }

    /// Whether `io` can seek on its own (a server with byte ranges, a file).
    static func canSeek(_ io: UnsafeMutablePointer<AVIOContext>) -> Bool {
        io.pointee.seekable & AVIO_SEEKABLE_NORMAL != 0
    }

    // MARK: The AVIOContext callbacks

    /// `read_packet`: up to `size` bytes at `position`; AVERROR_EOF at the end.
    func read(into buffer: UnsafeMutablePointer<UInt8>, size: Int32) -> Int32 {
        if position < cacheStart || position > cacheEnd {
            let moved = move(to: position)
            if moved < 0 { return Int32(truncatingIfNeeded: moved) }
        }
        if position < cacheEnd {
            let count = Int(min(Int64(size), cacheEnd - position))
            let from = Int(position - cacheStart)
            cache.withUnsafeBufferPointer { all in
                if let base = all.baseAddress { buffer.update(from: base + from, count: count) }
            }
            position += Int64(count)
            return Int32(count)
        }
        let got = avio_read_partial(inner.raw, buffer, size)
        guard got > 0 else { return got == 0 ? feedctl_AVERROR_EOF() : got }
        keep(UnsafeBufferPointer(start: buffer, count: Int(got)))
        position += Int64(got)
        return got
    }

    /// `seek`: moves to an offset (SEEK_SET, SEEK_CUR, SEEK_END), or answers the size
    /// (AVSEEK_SIZE, from the server's Content-Length; negative when it sent none).
    func seek(offset: Int64, whence: Int32) -> Int64 {
        let how = whence & ~Int32(AVSEEK_FORCE)
        if how == AVSEEK_SIZE { return avio_size(inner.raw) }
        let target: Int64
        switch how {
        case SEEK_SET: target = offset
        case SEEK_CUR: target = position &+ offset
        case SEEK_END:
            let size = avio_size(inner.raw)
            guard size >= 0 else { return Int64(feedctl_AVERROR(ENOSYS)) }
            target = size &+ offset
        default: return Int64(feedctl_AVERROR(EINVAL))
        }
        guard target >= 0 else { return Int64(feedctl_AVERROR(EINVAL)) }
        let moved = move(to: target)
        if moved >= 0 { position = target }
        return moved
    }

    // MARK: Moving

    /// Makes `target` readable: in the cache, after reading forward to it, or after opening the
    /// URL again. On failure nothing changed that the next read depends on (a failed reopen
    /// keeps the connection it had), so playback goes on where it was.
    private func move(to target: Int64) -> Int64 {
        if target >= cacheStart && target <= cacheEnd { return target }
        if target < cacheStart {
            let fresh: IOContext
            do throws(FFmpegError) {
                fresh = try Self.open(location, options: options, interrupt: interrupt)
            } catch {
                lastFailure = error.code
                return Int64(error.code)
            }
            inner = fresh
            cache.removeAll(keepingCapacity: true)
            cacheStart = 0
        }
        var scratch = [UInt8](repeating: 0, count: 64 << 10)
        while cacheEnd < target {
            let want = Int32(min(Int64(scratch.count), target - cacheEnd))
            let got = scratch.withUnsafeMutableBufferPointer { avio_read_partial(inner.raw, $0.baseAddress, want) }
            guard got > 0 else {
                let code = got == 0 ? feedctl_AVERROR_EOF() : got
                lastFailure = code
                return Int64(code)
            }
            scratch.withUnsafeBufferPointer { keep(UnsafeBufferPointer(rebasing: $0[..<Int(got)])) }
        }
        return target
    }

    /// Keeps the bytes from `offset` on (if still cached) until `unpin`, within `pinLimit`.
    func pin(_ offset: Int64) {
        pinned = offset >= cacheStart && offset <= cacheEnd ? offset : nil
        lastFailure = nil
    }

    /// Ends a seek's pin. The cache is back within `cacheLimit` at once, so what a seek read
    /// past the limit is not still there for the next seek (the rule, not timing, decides what
    /// a seek back finds), except bytes from where the demuxer reads next: a failed seek that
    /// read ahead (Ogg bisects) has put it back to where playback was.
    func unpin() {
        pinned = nil
        trim(beyond: 0, keepingFrom: position)
    }

    /// Appends bytes just read to the cache, dropping its oldest beyond `cacheLimit` (in steps of
    /// an eighth of it, so the copy is rare), but none from a pinned offset on while the cache
    /// stays within `pinLimit`.
    private func keep(_ bytes: UnsafeBufferPointer<UInt8>) {
        cache.append(contentsOf: bytes)
        if let pin = pinned {
            if cache.count <= pinLimit {
                trim(beyond: cacheLimit / 8, keepingFrom: pin)
                return
            }
            pinned = nil
        }
        trim(beyond: cacheLimit / 8)
    }

    /// Drops the oldest bytes past `cacheLimit` when more than `slack` are over it, none from
    /// `keepingFrom` on.
    private func trim(beyond slack: Int, keepingFrom kept: Int64? = nil) {
        var excess = cache.count - cacheLimit
        if let kept { excess = min(excess, Int(kept - cacheStart)) }
        guard excess > slack else { return }
        cache.removeFirst(excess)
        cacheStart += Int64(excess)
    }
}
