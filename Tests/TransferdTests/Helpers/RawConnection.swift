import NIOCore
import NIOPosix
import Synchronization

/// A bare TCP connection to a server on 127.0.0.1: bytes written as given, and what the server sent once it closed
/// the connection, for clients no HTTP library would be (one that never finishes its headers).
final class RawConnection: Sendable {
    private let channel: any Channel
    /// Everything received, once the server closed the connection.
    private let received = Mutex<String?>(nil)

    private init(channel: any Channel, closed: EventLoopFuture<String>) {
        self.channel = channel
        closed.whenSuccess { [self] text in self.received.withLock { $0 = text } }
    }

    /// Sends `greeting` as soon as the connection is up, and collects the bytes received until it closes.
    private final class Collector: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        private var received = ""
        private let greeting: String?
        private let closed: EventLoopPromise<String>

        init(greeting: String?, closed: EventLoopPromise<String>) {
            self.greeting = greeting
            self.closed = closed
        }

        func channelActive(context: ChannelHandlerContext) {
            if let greeting { context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: greeting)), promise: nil) }
            context.fireChannelActive()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            received += String(buffer: unwrapInboundIn(data))
        }

        func channelInactive(context: ChannelHandlerContext) {
            closed.succeed(received)
        }
    }

    /// Connects to `port`; `sending` goes out the moment the connection is up, from the event loop, not after the
    /// test's task is next scheduled (on a loaded machine that can be longer than a short idle timeout).
    static func open(port: Int, sending greeting: String? = nil) async throws -> RawConnection {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let closed = loop.makePromise(of: String.self)
        let channel = try await ClientBootstrap(group: loop)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Collector(greeting: greeting, closed: closed))
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
        return RawConnection(channel: channel, closed: closed.futureResult)
    }

    func write(_ text: String) async throws {
        try await channel.writeAndFlush(ByteBuffer(string: text))
    }

    /// Everything the server sent, once it closed the connection within `timeout`; nil while it is still open then.
    func readUntilClosed(timeout: Duration) async throws -> String? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let text = received.withLock({ $0 }) { return text }
            try await Task.sleep(for: .milliseconds(20))
        }
        return received.withLock { $0 }
    }

    func close() {
        channel.close(promise: nil)
    }
}
