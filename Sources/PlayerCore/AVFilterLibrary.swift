import CFFmpeg
#if canImport(Glibc)
import Glibc
#endif

/// libavfilter, loaded with dlopen on the first speed ≠ 1. Linking it would map it and the ~32
/// libraries only it needs (flite voices, libplacebo, vulkan, rubberband...) into every play,
/// ~8 MB of RSS that a 1× play never uses. CFFmpeg keeps its headers for the types only.
/// Loaded once and never unloaded, so the function pointers stay valid for the process.
struct AVFilterLibrary: Sendable {
    static let soname = "libavfilter.so.8"

    typealias GraphAlloc = @Sendable @convention(c) () -> UnsafeMutablePointer<AVFilterGraph>?
    typealias GraphFree = @Sendable @convention(c) (UnsafeMutablePointer<UnsafeMutablePointer<AVFilterGraph>?>?) -> Void
    typealias GetByName = @Sendable @convention(c) (UnsafePointer<CChar>?) -> UnsafePointer<AVFilter>?
    typealias CreateFilter = @Sendable @convention(c) (
        UnsafeMutablePointer<UnsafeMutablePointer<AVFilterContext>?>?, UnsafePointer<AVFilter>?,
        UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafeMutableRawPointer?, UnsafeMutablePointer<AVFilterGraph>?
    ) -> Int32
    typealias Link = @Sendable @convention(c) (
        UnsafeMutablePointer<AVFilterContext>?, UInt32, UnsafeMutablePointer<AVFilterContext>?, UInt32
    ) -> Int32
    typealias GraphConfig = @Sendable @convention(c) (UnsafeMutablePointer<AVFilterGraph>?, UnsafeMutableRawPointer?) -> Int32
    typealias SendCommand = @Sendable @convention(c) (
        UnsafeMutablePointer<AVFilterGraph>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?,
        UnsafeMutablePointer<CChar>?, Int32, Int32
    ) -> Int32
    typealias FrameIO = @Sendable @convention(c) (UnsafeMutablePointer<AVFilterContext>?, UnsafeMutablePointer<AVFrame>?) -> Int32

    let graphAlloc: GraphAlloc
    let graphFree: GraphFree
    let getByName: GetByName
    let createFilter: CreateFilter
    let link: Link
    let graphConfig: GraphConfig
    let sendCommand: SendCommand
    let bufferSourceAddFrame: FrameIO
    let bufferSinkGetFrame: FrameIO

    /// The process-wide library, loaded on first use; the same error on every call if it is missing.
    static func shared() throws(PlayerError) -> AVFilterLibrary { try loaded.get() }

    private static let loaded: Result<AVFilterLibrary, PlayerError> = Result { () throws(PlayerError) in
        try AVFilterLibrary(soname: soname)
    }

    /// Loads `soname` and resolves the functions TimeStretch calls.
    init(soname: String) throws(PlayerError) {
        guard let handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL) else {
            throw .audioOutput(reason: "playing at a speed other than 1× needs \(soname) (Debian: libavfilter8): "
                               + Self.lastError())
        }
        func symbol<T>(_ name: String, as type: T.Type) throws(PlayerError) -> T {
            guard let address = dlsym(handle, name) else {
                throw .audioOutput(reason: "\(soname) has no \(name): " + Self.lastError())
            }
            return unsafeBitCast(address, to: type)
        }
        graphAlloc = try symbol("avfilter_graph_alloc", as: GraphAlloc.self)
        graphFree = try symbol("avfilter_graph_free", as: GraphFree.self)
        getByName = try symbol("avfilter_get_by_name", as: GetByName.self)
        createFilter = try symbol("avfilter_graph_create_filter", as: CreateFilter.self)
        link = try symbol("avfilter_link", as: Link.self)
        graphConfig = try symbol("avfilter_graph_config", as: GraphConfig.self)
        sendCommand = try symbol("avfilter_graph_send_command", as: SendCommand.self)
        bufferSourceAddFrame = try symbol("av_buffersrc_add_frame", as: FrameIO.self)
        bufferSinkGetFrame = try symbol("av_buffersink_get_frame", as: FrameIO.self)
    }

    private static func lastError() -> String {
        guard let message = dlerror() else { return "unknown dlopen error" }
        return String(cString: message)
    }
}
