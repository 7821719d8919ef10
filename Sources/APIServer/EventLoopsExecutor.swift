import NIOCore

/// Swift concurrency's jobs on SwiftNIO's event loops, for the server's tasks (`feedctl serve`
/// runs the application under this task executor preference): a request's handler then runs on
/// the loop where its bytes arrived (`any()` is sticky to the calling loop), with no switch of
/// threads each way, instead of on Dispatch's pool beside NIO's. Nothing the server does blocks
/// a loop for long: bcrypt runs off it, GRDB's async reads and writes on GRDB's own queues, and
/// the in-place reads are bounded (`readNow`).
///
/// (NIO's own takeover of the global executor finds the runtime's hook with dlsym, which cannot
/// see it in the statically linked release build: it was silently refused.)
public final class EventLoopsExecutor: TaskExecutor {
    private let loops: any EventLoopGroup

    public init(_ loops: any EventLoopGroup) { self.loops = loops }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job), executor = asUnownedTaskExecutor()
        loops.any().execute { job.runSynchronously(on: executor) }
    }
}
