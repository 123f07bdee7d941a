import NIOCore
import NIOPosix
import Synchronization

/// A bare TCP connection to a server on 127.0.0.1: bytes written as given, and what the server sent (so far, and
/// once it closed the connection), for clients no HTTP library would be (one that never finishes its headers).
final class RawConnection: Sendable {
    private let channel: any Channel
    private let state: Received

    /// What arrived so far, and whether the server closed the connection: kept from the first byte, before `open`
    /// returns.
    private final class Received: Sendable {
        let value = Mutex((received: "", closed: false))
    }

    private init(channel: any Channel, state: Received) {
        self.channel = channel
        self.state = state
    }

    /// Sends `greeting` as soon as the connection is up, and hands what arrives, and the close, to its connection.
    private final class Collector: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        private let greeting: String?
        private let state: Received

        init(greeting: String?, state: Received) {
            self.greeting = greeting
            self.state = state
        }

        func channelActive(context: ChannelHandlerContext) {
            if let greeting { context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: greeting)), promise: nil) }
            context.fireChannelActive()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let text = String(buffer: unwrapInboundIn(data))
            state.value.withLock { $0.received += text }
        }

        func channelInactive(context: ChannelHandlerContext) {
            state.value.withLock { $0.closed = true }
        }
    }

    /// Connects to `port`; `sending` goes out the moment the connection is up, from the event loop, not after the
    /// test's task is next scheduled (on a loaded machine that can be longer than a short idle timeout).
    static func open(port: Int, sending greeting: String? = nil) async throws -> RawConnection {
        let state = Received()
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Collector(greeting: greeting, state: state))
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
        return RawConnection(channel: channel, state: state)
    }

    func write(_ text: String) async throws {
        try await channel.writeAndFlush(ByteBuffer(string: text))
    }

    /// Waits until the server has sent something (within `timeout`); what it sent, or nil.
    func readSomething(timeout: Duration) async throws -> String? {
        try await poll(timeout) { $0.received.isEmpty ? nil : $0.received }
    }

    /// Everything the server sent, once it closed the connection within `timeout`; nil while it is still open then.
    func readUntilClosed(timeout: Duration) async throws -> String? {
        try await poll(timeout) { $0.closed ? $0.received : nil }
    }

    private func poll(_ timeout: Duration, _ condition: ((received: String, closed: Bool)) -> String?) async throws -> String? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let found = state.value.withLock({ condition($0) }) { return found }
            try await Task.sleep(for: .milliseconds(20))
        }
        return state.value.withLock { condition($0) }
    }

    func close() {
        channel.close(promise: nil)
    }
}
