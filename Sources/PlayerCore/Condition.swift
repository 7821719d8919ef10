#if canImport(Glibc)
import Glibc
#endif

/// A mutex with one condition variable (what Foundation's NSCondition is), over pthreads:
/// PlayerCore does not import Foundation, whose libraries add ~9 MB to the player's RSS.
final class Condition: @unchecked Sendable {
    // Heap-allocated: pthread objects must not move, and Swift may move stored properties.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let cond = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(cond, nil)
    }

    deinit {
        pthread_cond_destroy(cond)
        pthread_mutex_destroy(mutex)
        cond.deallocate()
        mutex.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }
    /// Unlocks, sleeps until `signal()`, locks again. Call it locked, in a loop over the predicate.
    func wait() { pthread_cond_wait(cond, mutex) }
    func signal() { pthread_cond_signal(cond) }
}

/// Starts a detached thread running `body`, named `name` (at most 15 bytes, else unnamed).
/// Foundation's Thread without Foundation; fatal if the system cannot make a thread.
func startThread(name: String, _ body: @escaping @Sendable () -> Void) {
    let context = Unmanaged.passRetained(ThreadStart(name: name, body: body)).toOpaque()
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
    var thread = pthread_t()
    let rc = pthread_create(&thread, &attributes, { raw in
        guard let raw else { return nil }
        let start = Unmanaged<ThreadStart>.fromOpaque(raw).takeRetainedValue()
        // What pthread_setname_np (a GNU extension Swift does not import) does on Linux.
        let fd = open("/proc/thread-self/comm", O_WRONLY)
        if fd >= 0 { _ = write(fd, start.name, start.name.utf8.count); close(fd) }
        start.body()
        return nil
    }, context)
    guard rc == 0 else { fatalError("cannot start thread \(name): \(String(cString: strerror(rc)))") }
}

private final class ThreadStart {
    let name: String
    let body: @Sendable () -> Void
    init(name: String, body: @escaping @Sendable () -> Void) { self.name = name; self.body = body }
}
