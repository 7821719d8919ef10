import ControlProtocol
import ControlSocket
import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// The daemon's control socket as the server reaches it: connections on the server's own event
/// loops (SwiftNIO), one JSON line per request, reply and event. Nothing here blocks a thread or
/// starts one, whatever the number of requests and streams.
struct DaemonSocket: Sendable {
    typealias Connection = NIOAsyncChannel<ByteBuffer, ByteBuffer>

    let path: String
    let group: any EventLoopGroup

    /// Why the daemon gave no reply.
    enum Failure: Error {
        /// Nothing listens: no socket, or one a dead daemon left.
        case notRunning
        /// The daemon refused (its reply's failure, all its client slots taken included), or the
        /// connection failed in a way a person must hear about.
        case refused(PlayerFailure)
    }

    /// Connects, with the CLI's checks (`SocketTrust`: the directory and socket are the user's).
    func connect() async throws(Failure) -> Connection {
        do { try SocketTrust.check(path) } catch { throw .refused(PlayerFailure(.unavailable, error.description)) }
        do {
            return try await ClientBootstrap(group: group)
                .connectTimeout(.seconds(Int64(LineConnection.connectTimeout)))
                .connect(unixDomainSocketPath: path) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineDecoder()))
                        return try Connection(wrappingChannelSynchronously: channel)
                    }
                }
        } catch let error as IOError where error.errnoCode == ENOENT || error.errnoCode == ECONNREFUSED {
            throw .notRunning
        } catch let error as IOError where error.errnoCode == EAGAIN {
            // A Unix socket's backlog is full: the daemon is not accepting.
            throw .refused(PlayerFailure(.unavailable, "the feedctl daemon is busy: it accepts no more connections now; try again"))
        } catch {
            throw .refused(PlayerFailure(.unavailable, "cannot reach the feedctl daemon on \(path): \(error)"))
        }
    }

    /// Sends `command` on `connection` and reads its reply (bounded by `timeout`); a refusal is
    /// thrown. The connection stays open for what follows (a subscription's events).
    static func send(_ command: PlayerCommand, on connection: Connection, timeout: TimeAmount,
                     lines: inout NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator,
                     outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>) async throws(Failure) -> PlayerReply {
        let timedOut = Atomic<Bool>(false)
        let channel = connection.channel
        let timer = channel.eventLoop.scheduleTask(in: timeout) {
            timedOut.store(true, ordering: .relaxed)
            channel.close(promise: nil)
        }
        defer { timer.cancel() }
        // A daemon whose client slots are all taken answers before reading and closes: its
        // refusal is the line read below even when this write finds the connection gone.
        try? await outbound.write(ByteBuffer(bytes: line(command)))
        let reply: ByteBuffer?
        do { reply = try await lines.next() } catch { reply = nil }
        guard let reply else {
            let seconds = Int(timeout.nanoseconds / 1_000_000_000)
            throw .refused(timedOut.load(ordering: .relaxed)
                ? PlayerFailure(.unavailable, "the feedctl daemon did not answer within \(seconds) s")
                : PlayerFailure(.unavailable, "the feedctl daemon closed the connection without answering"))
        }
        do {
            return try JSONDecoder().decode(PlayerReply.self, from: Data(reply.readableBytesView)).checked()
        } catch let failure as PlayerFailure {
            throw .refused(failure)
        } catch {
            throw .refused(PlayerFailure(.failed, "the feedctl daemon answered something that is not a reply: \(error)"))
        }
    }

    /// One request, one reply, then the connection closes.
    func request(_ command: PlayerCommand, timeout: TimeAmount) async throws(Failure) -> PlayerReply {
        let connection = try await connect()
        let result: Result<PlayerReply, Failure>
        do {
            result = try await connection.executeThenClose { inbound, outbound in
                var lines = inbound.makeAsyncIterator()
                do throws(Failure) {
                    return .success(try await Self.send(command, on: connection, timeout: timeout, lines: &lines, outbound: outbound))
                } catch {
                    return .failure(error)
                }
            }
        } catch {
            result = .failure(.refused(PlayerFailure(.unavailable, "the connection to the feedctl daemon failed: \(error)")))
        }
        return try result.get()
    }

    /// A request line as `ControlClient` writes it.
    static func line(_ command: PlayerCommand) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        // A request of known shape always encodes.
        var bytes = (try? encoder.encode(ControlRequest(command))).map(Array.init) ?? []
        bytes.append(10)
        return bytes
    }
}

/// Splits what the daemon sends into lines (without the newline), at most
/// `LineConnection.maxLine` bytes each: a longer one closes the connection.
struct LineDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    struct LineTooLong: Error {}

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let newline = buffer.readableBytesView.firstIndex(of: 10) else {
            if buffer.readableBytes > LineConnection.maxLine { throw LineTooLong() }
            return .needMoreData
        }
        let length = newline - buffer.readerIndex
        guard let line = buffer.readSlice(length: length) else { return .needMoreData }
        buffer.moveReaderIndex(forwardBy: 1)
        context.fireChannelRead(wrapInboundOut(line))
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        // A last line without its newline still counts, as the daemon's own reader does it.
        while try decode(context: context, buffer: &buffer) == .continue {}
        if buffer.readableBytes > 0, let rest = buffer.readSlice(length: buffer.readableBytes) {
            context.fireChannelRead(wrapInboundOut(rest))
        }
        return .needMoreData
    }
}
