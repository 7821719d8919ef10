import FeedModel
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import Synchronization

/// The bounds `feedctl serve` puts on connections (`ConnectionLimits`; tests shorten the times).
public struct ConnectionPolicy: Sendable, Equatable {
    public var idle: TimeAmount
    public var head: TimeAmount
    public var body: TimeAmount
    public var maxPerAddress: Int
    public var stormConnections: Int

    public init(idle: TimeAmount = .seconds(Int64(ConnectionLimits.idleSeconds)),
                head: TimeAmount = .seconds(Int64(ConnectionLimits.headSeconds)),
                body: TimeAmount = .seconds(Int64(ConnectionLimits.bodySeconds)),
                maxPerAddress: Int = ConnectionLimits.maxPerAddress,
                stormConnections: Int = ConnectionLimits.stormConnections) {
        self.idle = idle; self.head = head; self.body = body
        self.maxPerAddress = maxPerAddress; self.stormConnections = stormConnections
    }
}

/// Hummingbird's HTTP/1 connection with `ConnectionPolicy` applied: a connection past its
/// address's cap is closed as soon as it is accepted, and one that does not get on with its
/// request (idle, a head or a body too slow) is closed. Two handlers do it: `ConnectionGate`
/// first in the pipeline, which counts the connection against its address and tells the one
/// below when bytes arrive, and `RequestDeadlines` after the HTTP decoder, which knows where a
/// request starts and ends. (Hummingbird's own idle timeout counts only whole HTTP parts, so a
/// head sent a byte at a time never times out, and a body a byte at a time resets it each time.)
struct GuardedHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value
    let base: HTTP1Channel
    let connections: ClientConnections

    init(responder: @escaping HTTPChannelHandler.Responder, policy: ConnectionPolicy, connections: ClientConnections) {
        let clock = RequestClock.Policy(idle: policy.idle, head: policy.head, body: policy.body)
        base = HTTP1Channel(responder: responder, configuration: .init(additionalChannelHandlers: [RequestDeadlines(clock)]))
        self.connections = connections
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        do {
            try channel.pipeline.syncOperations.addHandler(ConnectionGate(connections))
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return base.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

/// Which client a connection counts against: an IPv4 address, or an IPv6 /64 (one host
/// commonly holds a whole /64, and could otherwise open `maxPerAddress` from each of its
/// addresses). An IPv4-mapped IPv6 address is its IPv4 address.
struct ClientAddress: Hashable, Sendable {
    let bytes: [UInt8]

    init?(_ address: SocketAddress?) {
        switch address {
        case .v4(let v4):
            bytes = withUnsafeBytes(of: v4.address.sin_addr) { Array($0) }
        case .v6(let v6):
            let all = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
            let mapped = all[0..<10].allSatisfy { $0 == 0 } && all[10] == 0xFF && all[11] == 0xFF
            bytes = mapped ? Array(all[12..<16]) : Array(all[0..<8])
        default:
            return nil   // a Unix socket's peer: no address to count
        }
    }
}

/// Connections open now, per client address, shared by every event loop; and the storm
/// watch: after `stormConnections` were open at once, `afterStorm` runs (off the loops) once no
/// more than a quarter of that are left.
public final class ClientConnections: Sendable {
    private struct State {
        var perAddress: [ClientAddress: Int] = [:]
        var open = 0
        var stormSeen = false
        /// Connections whose client has closed its side (it may still read an answer, but a
        /// long request's work stops: `OffLoopMiddleware`).
        var inputClosed: Set<ObjectIdentifier> = []
        /// What to do when a connection's client leaves (an event stream ends: `whenClientLeaves`).
        var onLeaving: [ObjectIdentifier: [@Sendable () -> Void]] = [:]
    }
    private let state = Mutex(State())
    let policy: ConnectionPolicy
    private let afterStorm: @Sendable () -> Void

    public init(policy: ConnectionPolicy, afterStorm: @escaping @Sendable () -> Void = {}) {
        self.policy = policy; self.afterStorm = afterStorm
    }

    /// Counts a new connection from `address`; false (not counted) when its address has
    /// `maxPerAddress` open already.
    func admit(_ address: ClientAddress?) -> Bool {
        state.withLock { state in
            if let address {
                let count = state.perAddress[address, default: 0]
                guard count < policy.maxPerAddress else { return false }
                state.perAddress[address] = count + 1
            }
            state.open += 1
            if state.open >= policy.stormConnections { state.stormSeen = true }
            return true
        }
    }

    /// The client of `channel` closed its side of the connection.
    func inputClosed(_ channel: any NIOCore.Channel) {
        let actions = state.withLock { state in
            state.inputClosed.insert(ObjectIdentifier(channel))
            return state.onLeaving.removeValue(forKey: ObjectIdentifier(channel)) ?? []
        }
        actions.forEach { $0() }
    }

    /// Runs `action` once the client of `channel` has gone (now, if it has): a browser closing
    /// an event stream closes its side, and the stream's place is free at once rather than at
    /// its next write.
    func whenClientLeaves(_ channel: any NIOCore.Channel, _ action: @escaping @Sendable () -> Void) {
        let gone = state.withLock { state in
            if state.inputClosed.contains(ObjectIdentifier(channel)) { return true }
            state.onLeaving[ObjectIdentifier(channel), default: []].append(action)
            return false
        }
        if gone || !channel.isActive { action() }
    }

    /// Whether the client of `channel` has gone: the connection closed, or the client closed its
    /// side (as a browser or curl does when its user gives up).
    func clientLeft(_ channel: any NIOCore.Channel) -> Bool {
        !channel.isActive || state.withLock { $0.inputClosed.contains(ObjectIdentifier(channel)) }
    }

    /// A connection `admit` counted has closed.
    func release(_ address: ClientAddress?, _ channel: any NIOCore.Channel) {
        let (stormOver, actions) = state.withLock { state -> (Bool, [@Sendable () -> Void]) in
            state.inputClosed.remove(ObjectIdentifier(channel))
            let actions = state.onLeaving.removeValue(forKey: ObjectIdentifier(channel)) ?? []
            if let address {
                let count = state.perAddress[address, default: 1] - 1
                state.perAddress[address] = count > 0 ? count : nil
            }
            state.open -= 1
            guard state.stormSeen, state.open <= policy.stormConnections / 4 else { return (false, actions) }
            state.stormSeen = false
            // The dictionary's storage grew with the storm: let it go too.
            if state.perAddress.isEmpty { state.perAddress = [:] }
            return (true, actions)
        }
        actions.forEach { $0() }
        if stormOver {
            let afterStorm = self.afterStorm
            Task.detached { afterStorm() }
        }
    }

    /// Connections open now (tests).
    var open: Int { state.withLock { $0.open } }
}

/// The first handler of a connection: counts it against its client's address (closing it at
/// once past the cap), and tells `RequestDeadlines` each time bytes arrive, so that it can tell
/// an idle connection from a request head arriving slowly.
final class ConnectionGate: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    private let connections: ClientConnections
    private var counted: ClientAddress?? = nil

    init(_ connections: ClientConnections) { self.connections = connections }

    func channelActive(context: ChannelHandlerContext) {
        let address = ClientAddress(context.channel.remoteAddress)
        let admitted = connections.admit(address)
        if admitted { counted = .some(address) }
        context.fireChannelActive()
        if !admitted { context.close(promise: nil) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if case .some(let address) = counted { connections.release(address, context.channel) }
        counted = nil
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event { connections.inputClosed(context.channel) }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireUserInboundEventTriggered(RequestBytesArrived())
        context.fireChannelRead(data)
    }
}

/// What `ConnectionGate` sends down the pipeline when bytes arrive.
struct RequestBytesArrived: Sendable {}

/// The HTTP parts Hummingbird's pipeline carries (`NIOHTTPTypes`' `HTTPRequestPart` and
/// `HTTPResponsePart`, named through Hummingbird's channel so that module need not be imported).
typealias RequestPart = HTTP1Channel.Value.InboundPart
typealias ResponsePart = HTTP1Channel.Value.OutboundPart

extension NIOAsyncChannel {
    /// Its generic parameters, as names others can reach.
    typealias InboundPart = Inbound
    typealias OutboundPart = Outbound
}

/// Closes a connection whose request does not arrive in time (`RequestClock`); sits after the
/// HTTP decoder, where heads, bodies and ends are known.
final class RequestDeadlines: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = RequestPart
    typealias InboundOut = RequestPart
    typealias OutboundIn = ResponsePart
    typealias OutboundOut = ResponsePart

    private var clock: RequestClock
    private var timer: Scheduled<Void>?

    init(_ policy: RequestClock.Policy) { clock = RequestClock(policy, now: .now()) }

    func handlerAdded(context: ChannelHandlerContext) { rearm(context) }
    func handlerRemoved(context: ChannelHandlerContext) { timer?.cancel(); timer = nil }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: clock.headRead(at: .now())
        case .body: break
        case .end: clock.requestEnded(at: .now())
        }
        rearm(context)
        context.fireChannelRead(data)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is RequestBytesArrived {
            clock.bytesArrived(at: .now())
            rearm(context)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            clock.responseEnded(at: .now())
            rearm(context)
        }
        context.write(data, promise: promise)
    }

    /// One timer for the nearest deadline; when it fires, the connection closes if the deadline
    /// still stands (a request may have moved on meanwhile).
    private func rearm(_ context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        guard let deadline = clock.deadline else { return }
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            timer = nil
            if let due = clock.deadline, due <= .now() {
                context.close(promise: nil)
            } else {
                rearm(context)
            }
        }
    }
}

/// When a connection must have made progress, as a value (the handler only feeds it events
/// and keeps one timer): with no request in progress, the first byte of the next within
/// `idle` of the connection's start or the last answer; then its head within `head` of that
/// byte; then its body within `body` of the head. While a request is answered there is no
/// deadline. Requests may be pipelined: heads, ends and answers are counted.
struct RequestClock: Equatable {
    struct Policy: Equatable, Sendable {
        var idle: TimeAmount
        var head: TimeAmount
        var body: TimeAmount
    }
    let policy: Policy
    private var heads = 0, ends = 0, answers = 0
    /// Since when the connection waits for a request (its start, or the last answer).
    private var waitingSince: NIODeadline
    /// When the first byte of the next head arrived, if it has.
    private var headStarted: NIODeadline?
    /// When the head of the request whose body is being read arrived.
    private var bodyStarted: NIODeadline?

    init(_ policy: Policy, now: NIODeadline) {
        self.policy = policy; waitingSince = now
    }

    mutating func bytesArrived(at now: NIODeadline) {
        if isWaiting && headStarted == nil { headStarted = now }
    }

    mutating func headRead(at now: NIODeadline) {
        heads += 1
        headStarted = nil
        bodyStarted = now
    }

    mutating func requestEnded(at now: NIODeadline) {
        ends += 1
        bodyStarted = nil
        if isWaiting { waitingSince = now }   // answered before its body was all read
    }

    mutating func responseEnded(at now: NIODeadline) {
        answers += 1
        if isWaiting { waitingSince = now }
    }

    /// No request is being read or answered.
    private var isWaiting: Bool { heads == ends && answers >= ends }

    var deadline: NIODeadline? {
        if heads > ends, let bodyStarted { return bodyStarted + policy.body }
        guard isWaiting else { return nil }
        if let headStarted { return headStarted + policy.head }
        return waitingSince + policy.idle
    }
}
