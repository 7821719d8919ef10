import CFFmpeg

/// An `AVFilterGraph` from the dlopen'ed libavfilter; freed, with the filters in it, when dropped.
struct FilterGraph: ~Copyable {
    let raw: UnsafeMutablePointer<AVFilterGraph>
    private let lib: AVFilterLibrary

    init(_ lib: AVFilterLibrary) throws(FFmpegError) {
        guard let raw = lib.graphAlloc() else { throw .outOfMemory("avfilter_graph_alloc") }
        self.raw = raw
        self.lib = lib
    }

    deinit {
        var graph: UnsafeMutablePointer<AVFilterGraph>? = raw
        lib.graphFree(&graph)
    }
}
