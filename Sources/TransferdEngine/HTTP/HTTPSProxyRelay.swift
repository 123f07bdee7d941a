import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import TransferdDomain

/// Carries the connections to an `https://` proxy. AsyncHTTPClient reaches a proxy in plain text only, so it
/// connects to this relay on 127.0.0.1 instead; for each of its connections the relay opens one over TLS to the
/// proxy (at its vetted address, checking its certificate against its name) and passes the bytes both ways. The
/// `CONNECT`, its credentials and the tunnel then all run inside that TLS.
final class HTTPSProxyRelay: Sendable {
    /// The loopback port the client connects to.
    let port: Int
    private let listener: any Channel

    private init(port: Int, listener: any Channel) {
        self.port = port
        self.listener = listener
    }

    /// Starts a relay to the proxy `host` (its name, for SNI and the certificate) at `address`:`port`, once a first
    /// TLS handshake with it succeeded: a certificate not trusted fails here, as the handshake's own error, rather than
    /// as a connection the relay would close on the client without a word.
    static func start(host: String, address: String, port: Int, tls: TLSConfiguration) async throws -> HTTPSProxyRelay {
        let context = try NIOSSLContext(configuration: tls)
        let serverName = IPAddress(host) == nil ? host : nil
        try await handshake(with: address, port: port, context: context, serverName: serverName)
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            // The accepted connection is read only once its partner is connected and glued to it (a child channel is
            // registered, and so read, after its initializer's future): nothing the client sends first is lost.
            .childChannelInitializer { inbound in
                ClientBootstrap(group: inbound.eventLoop)
                    .channelInitializer { outbound in
                        outbound.eventLoop.makeCompletedFuture {
                            try outbound.pipeline.syncOperations.addHandler(
                                NIOSSLClientHandler(context: context, serverHostname: serverName)
                            )
                        }
                    }
                    .connect(host: address, port: port)
                    .flatMapThrowing { outbound in
                        // Both connections live on the inbound's event loop, where this runs.
                        let (near, far) = RelayGlue.pair()
                        try inbound.pipeline.syncOperations.addHandler(near)
                        try outbound.pipeline.syncOperations.addHandler(far)
                    }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        return HTTPSProxyRelay(port: listener.localAddress?.port ?? 0, listener: listener)
    }

    /// Connects to the proxy and completes one TLS handshake; throws its failure.
    private static func handshake(with address: String, port: Int, context: NIOSSLContext, serverName: String?) async throws {
        let promise = MultiThreadedEventLoopGroup.singleton.next().makePromise(of: Void.self)
        let channel = try await ClientBootstrap(group: promise.futureResult.eventLoop)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: context, serverHostname: serverName))
                    try channel.pipeline.syncOperations.addHandler(HandshakeWatch(promise: promise))
                }
            }
            .connect(host: address, port: port)
            .get()
        defer { channel.close(promise: nil) }
        try await promise.futureResult.get()
    }

    /// Stops taking connections; those under way end with their transfers.
    func close() {
        listener.close(promise: nil)
    }
}

/// One end of a relayed connection: what one channel reads, its partner writes, and a channel reads only while its
/// partner can write (backpressure); a close or an error on one side closes the other.
private final class RelayGlue: ChannelDuplexHandler {
    typealias InboundIn = NIOAny
    typealias OutboundIn = NIOAny
    typealias OutboundOut = NIOAny

    private var partner: RelayGlue?
    private var context: ChannelHandlerContext?
    private var pendingRead = false

    /// Two ends glued to each other. They live on one event loop (the outbound connection is made on the inbound's).
    static func pair() -> (RelayGlue, RelayGlue) {
        let (first, second) = (RelayGlue(), RelayGlue())
        (first.partner, second.partner) = (second, first)
        return (first, second)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        partner = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        partner?.context?.write(data, promise: nil)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        partner?.context?.flush()
    }

    func channelInactive(context: ChannelHandlerContext) {
        partner?.context?.close(promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
        partner?.context?.close(promise: nil)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, let partner, partner.pendingRead {
            partner.pendingRead = false
            partner.context?.read()
        }
        context.fireChannelWritabilityChanged()
    }

    func read(context: ChannelHandlerContext) {
        if partner?.context?.channel.isWritable == true {
            context.read()
        } else {
            pendingRead = true
        }
    }
}

/// Completes its promise when the TLS handshake does, or fails it with what stopped the handshake.
private final class HandshakeWatch: ChannelInboundHandler {
    typealias InboundIn = NIOAny

    private var promise: EventLoopPromise<Void>?

    init(promise: EventLoopPromise<Void>) {
        self.promise = promise
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .handshakeCompleted = event as? TLSUserEvent { complete(.success(())) }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        complete(.failure(error))
    }

    func channelInactive(context: ChannelHandlerContext) {
        complete(.failure(ChannelError.eof))
        context.fireChannelInactive()
    }

    private func complete(_ result: Result<Void, any Error>) {
        promise?.completeWith(result)
        promise = nil
    }
}
