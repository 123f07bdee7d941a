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

    /// Collects the bytes received until the connection closes.
    private final class Collector: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        private var received = ""
        private let closed: EventLoopPromise<String>

        init(closed: EventLoopPromise<String>) {
            self.closed = closed
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            received += String(buffer: unwrapInboundIn(data))
        }

        func channelInactive(context: ChannelHandlerContext) {
            closed.succeed(received)
        }
    }

    static func open(port: Int) async throws -> RawConnection {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let closed = loop.makePromise(of: String.self)
        let channel = try await ClientBootstrap(group: loop)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(Collector(closed: closed)) }
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
