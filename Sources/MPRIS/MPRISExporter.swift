import ControlProtocol
import CSDBus
import Foundation
import NowPlaying
import Synchronization

/// Exports the daemon's player as an MPRIS2 player on the session bus.
///
/// sd-bus objects are not thread-safe, so one thread owns the connection: it runs
/// `sd_bus_process`, and sleeps in `poll` on the bus fd plus an eventfd. Other threads never
/// touch the bus; they put work in `inbox` (PropertiesChanged and Seeked from now-playing events,
/// replies to method calls once their command has run) and write the eventfd to wake it.
public final class MPRISExporter: @unchecked Sendable {
    static let busName = "org.mpris.MediaPlayer2.feedctl"
    static let objectPath = "/org/mpris/MediaPlayer2"

    private enum Outgoing: Sendable {
        case changed(interface: String, properties: [String])
        case seeked(micros: Int64)
        case reply(PendingCall, BusError?)
        case stop
    }

    /// The bus name actually owned (another feedctl daemon may hold the plain one).
    public private(set) var name = ""
    private let bus: OpaquePointer
    private let wakeFD: Int32
    /// Work for the bus thread; `open` turns false (under the lock) before the eventfd is closed.
    private let inbox = Mutex<(items: [Outgoing], open: Bool)>(([], true))
    private let handlers: UnsafeMutablePointer<CSDBusHandlers>
    private var object: MPRISObject!  // bus thread only, after init
    private var events: Task<Void, Never>?
    private let finished = DispatchSemaphore(value: 0)
    private let log: @Sendable (String) -> Void

    /// Connects to the session bus, takes the MPRIS name and starts serving; nil (after logging
    /// why, once) when no session bus is reachable, so the daemon runs on without MPRIS.
    /// Commands go to `control`; properties read `nowPlaying` and `position` (what the listener
    /// hears now). `onQuit` runs once a Quit succeeded and its reply is queued ahead of a `stop()`.
    public static func startIfBusReachable(control: any PlayerControl, nowPlaying: NowPlayingCenter,
                                           position: @escaping @Sendable () -> Double,
                                           onQuit: @escaping @Sendable () -> Void,
                                           log: @escaping @Sendable (String) -> Void) -> MPRISExporter? {
        do {
            let exporter = try MPRISExporter(control: control, nowPlaying: nowPlaying, position: position,
                                             onQuit: onQuit, log: log)
            log("MPRIS: exported on the session bus as \(exporter.name)")
            return exporter
        } catch {
            log("MPRIS: \(error); running without MPRIS")
            return nil
        }
    }

    private init(control: any PlayerControl, nowPlaying: NowPlayingCenter, position: @escaping @Sendable () -> Double,
                 onQuit: @escaping @Sendable () -> Void, log: @escaping @Sendable (String) -> Void) throws(MPRISError) {
        self.log = log
        var opened: OpaquePointer?
        try check(sd_bus_open_user(&opened), "no session bus reachable", "sd_bus_open_user")
        guard let bus = opened else { throw MPRISError("no session bus reachable (sd_bus_open_user returned no bus)") }
        let fd = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard fd >= 0 else {
            sd_bus_flush_close_unref(bus)
            throw MPRISError("cannot serve MPRIS (eventfd: \(String(cString: strerror(errno))))")
        }
        self.bus = bus
        wakeFD = fd
        handlers = .allocate(capacity: 1)
        handlers.initialize(to: CSDBusHandlers(get: mprisGetProperty, set: mprisSetProperty, call: mprisCall, context: nil))
        handlers.pointee.context = Unmanaged.passUnretained(self).toOpaque()
        object = MPRISObject(control: control, nowPlaying: nowPlaying, position: position, onQuit: onQuit) { [weak self] call, error in
            self?.post(.reply(call, error))
        }
        do {
            // A wedged bus must not hang the daemon's start.
            _ = sd_bus_set_method_call_timeout(bus, 5_000_000)
            // The object first, then the name: a client that sees the name can query it at once.
            for (interface, vtable) in [(MPRISObject.rootInterface, csdbus_mpris_root_vtable()),
                                        (MPRISObject.playerInterface, csdbus_mpris_player_vtable())] {
                try check(sd_bus_add_object_vtable(bus, nil, Self.objectPath, interface, vtable, handlers),
                          "cannot export \(interface)", "sd_bus_add_object_vtable")
            }
            var r = sd_bus_request_name(bus, Self.busName, 0)
            name = Self.busName
            if r == -EEXIST {
                // The spec's convention for a second instance.
                name = "\(Self.busName).instance\(getpid())"
                r = sd_bus_request_name(bus, name, 0)
            }
            try check(r, "cannot own \(name) on the session bus", "sd_bus_request_name")
        } catch {
            sd_bus_flush_close_unref(bus)
            close(fd)
            object = nil
            handlers.deallocate()
            throw error
        }
        let thread = Thread { [self] in run() }
        thread.name = "feedctl-mpris"
        thread.start()
        events = Task.detached { [weak self, stream = nowPlaying.events()] in
            for await event in stream {
                guard let self else { return }
                if let outgoing = Self.outgoing(for: event) { self.post(outgoing) }
            }
        }
    }

    /// Releases the name and closes the connection; waits (bounded) for the bus thread.
    public func stop() {
        events?.cancel()
        post(.stop)
        _ = finished.wait(timeout: .now() + 2)
    }

    /// What a now-playing event means on the bus. Position is never a PropertiesChanged
    /// (clients compute it from Rate and listen for Seeked).
    private static func outgoing(for event: NowPlayingEvent) -> Outgoing? {
        let player = MPRISObject.playerInterface
        switch event {
        case .statusChanged: return .changed(interface: player, properties: ["PlaybackStatus"])
        case .metadataChanged: return .changed(interface: player, properties: ["Metadata"])
        case .volumeChanged: return .changed(interface: player, properties: ["Volume"])
        case .rateChanged: return .changed(interface: player, properties: ["Rate"])
        case .capabilitiesChanged:
            return .changed(interface: player, properties: ["CanGoNext", "CanGoPrevious", "CanPlay", "CanPause", "CanSeek"])
        case .seeked(let position): return .seeked(micros: MPRISObject.micros(position))
        case .tick, .errorChanged, .chapterChanged: return nil
        }
    }

    private func post(_ outgoing: Outgoing) {
        inbox.withLock { inbox in
            guard inbox.open else { return }
            inbox.items.append(outgoing)
            _ = eventfd_write(wakeFD, 1)
        }
    }

    // MARK: Bus thread

    private func run() {
        defer {
            let unsent = inbox.withLock { inbox in
                inbox.open = false
                defer { inbox.items.removeAll() }
                return inbox.items
            }
            for case .reply(let call, _) in unsent { sd_bus_message_unref(call.message) }
            sd_bus_flush_close_unref(bus)
            close(wakeFD)
            object = nil
            handlers.deallocate()
            finished.signal()
        }
        while true {
            var r: Int32
            repeat { r = sd_bus_process(bus, nil) } while r > 0
            if r < 0 {
                log("MPRIS: lost the session bus (\(String(cString: strerror(-r)))); running without MPRIS")
                return
            }
            if !drainInbox() { return }
            r = waitForWork()
            if r < 0 && r != -EINTR {
                log("MPRIS: waiting on the session bus failed (\(String(cString: strerror(-r)))); running without MPRIS")
                return
            }
        }
    }

    /// Sends what other threads queued; false once asked to stop.
    private func drainInbox() -> Bool {
        var value: eventfd_t = 0
        _ = eventfd_read(wakeFD, &value)
        let batch = inbox.withLock { inbox in defer { inbox.items.removeAll() }; return inbox.items }
        var pending: (interface: String, properties: [String])?
        func flushChanges() {
            guard let changes = pending else { return }
            pending = nil
            emitPropertiesChanged(changes.interface, changes.properties)
        }
        for item in batch {
            switch item {
            case .changed(let interface, let properties):
                // Consecutive changes become one PropertiesChanged with the current values.
                if let p = pending, p.interface == interface {
                    pending?.properties += properties.filter { !p.properties.contains($0) }
                } else {
                    flushChanges()
                    pending = (interface, properties)
                }
            case .seeked(let micros):
                flushChanges()
                emitSeeked(micros)
            case .reply(let call, let error):
                flushChanges()
                sendReply(call, error)
            case .stop:
                flushChanges()
                return false
            }
        }
        flushChanges()
        return true
    }

    private func emitPropertiesChanged(_ interface: String, _ properties: [String]) {
        var names = properties.map { strdup($0) }
        names.append(nil)
        defer { names.forEach { free($0) } }
        let r = sd_bus_emit_properties_changed_strv(bus, Self.objectPath, interface, &names)
        if r < 0 { log("MPRIS: PropertiesChanged(\(properties.joined(separator: ","))) failed: \(String(cString: strerror(-r)))") }
    }

    private func emitSeeked(_ micros: Int64) {
        var message: OpaquePointer?
        var r = sd_bus_message_new_signal(bus, &message, Self.objectPath, MPRISObject.playerInterface, "Seeked")
        if r >= 0, let message {
            r = BusValue.int64(micros).append(to: message)
            if r >= 0 { r = sd_bus_send(bus, message, nil) }
        }
        sd_bus_message_unref(message)
        if r < 0 { log("MPRIS: Seeked failed: \(String(cString: strerror(-r)))") }
    }

    private func sendReply(_ call: PendingCall, _ error: BusError?) {
        guard let message = call.message else { return }
        defer { sd_bus_message_unref(message) }
        if let error {
            var e = csdbus_error_null()
            _ = error.set(&e)
            _ = sd_bus_reply_method_error(message, &e)
            sd_bus_error_free(&e)
        } else {
            _ = csdbus_reply_empty(message)
        }
    }

    /// Sleeps until the bus has something, sd-bus's own timeout passes, or another thread wakes us.
    private func waitForWork() -> Int32 {
        let busFD = sd_bus_get_fd(bus)
        let events = sd_bus_get_events(bus)
        guard busFD >= 0 else { return busFD }
        guard events >= 0 else { return events }
        var until: UInt64 = 0
        var timeoutMs: Int32 = -1
        if sd_bus_get_timeout(bus, &until) >= 0, until != UInt64.max {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            let nowMicros = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
            timeoutMs = until <= nowMicros ? 0 : Int32(min(UInt64(Int32.max), (until - nowMicros + 999) / 1000))
        }
        var fds = [pollfd(fd: busFD, events: Int16(events), revents: 0), pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)]
        let r = poll(&fds, 2, timeoutMs)
        return r < 0 ? -errno : 0
    }

    fileprivate var exported: MPRISObject { object }
}

struct MPRISError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Turns an sd-bus return code into an MPRISError: "what (function: why)".
private func check(_ r: Int32, _ what: String, _ function: String) throws(MPRISError) {
    guard r < 0 else { return }
    throw MPRISError("\(what) (\(function): \(String(cString: strerror(-r))))")
}

// The vtable trampolines in CSDBus/shim.h call these, on the bus thread (inside sd_bus_process).
// Global functions, not closures from an actor context: see the Swift/C interop recipe.

private func exporter(_ context: UnsafeMutableRawPointer?) -> MPRISObject? {
    guard let context else { return nil }
    return Unmanaged<MPRISExporter>.fromOpaque(context).takeUnretainedValue().exported
}

private func mprisGetProperty(_ context: UnsafeMutableRawPointer?, _ interface: UnsafePointer<CChar>?,
                              _ property: UnsafePointer<CChar>?, _ reply: OpaquePointer?,
                              _ error: UnsafeMutablePointer<sd_bus_error>?) -> Int32 {
    guard let object = exporter(context), let interface, let property, let reply else { return -EINVAL }
    guard let value = object.property(String(cString: interface), String(cString: property)) else {
        return BusError.invalidArgs("no property \(String(cString: property))").set(error)
    }
    return value.append(to: reply)
}

private func mprisSetProperty(_ context: UnsafeMutableRawPointer?, _ interface: UnsafePointer<CChar>?,
                              _ property: UnsafePointer<CChar>?, _ value: OpaquePointer?,
                              _ error: UnsafeMutablePointer<sd_bus_error>?) -> Int32 {
    guard let object = exporter(context), let interface, let property, let value else { return -EINVAL }
    do throws(BusError) {
        try object.setProperty(String(cString: interface), String(cString: property), value)
        return 1
    } catch let failure {
        return failure.set(error)
    }
}

private func mprisCall(_ context: UnsafeMutableRawPointer?, _ message: OpaquePointer?,
                       _ error: UnsafeMutablePointer<sd_bus_error>?) -> Int32 {
    guard let object = exporter(context), let message else { return -EINVAL }
    do throws(BusError) {
        return try object.call(message)
    } catch let failure {
        return failure.set(error)
    }
}
