import HummingbirdCore
import NIOCore
import NIOHTTPTypes

/// Closes a connection whose request head has not arrived in full `timeout` after its first byte: a client that
/// trickles its headers (slowloris) holds a connection for no longer than that. Waiting between requests and reading
/// bodies are the idle timeout's.
///
/// It sits after the HTTP decoder, which reports a head only once it is complete, and puts a second handler first in
/// the pipeline to hear the first raw byte. A request costs it a clock reading, not a timer: one timer at a time per
/// connection checks the head that is pending when it fires, and is set again only for a head still pending.
package final class RequestHeadTimeout: ChannelDuplexHandler, RemovableChannelHandler {
    package typealias InboundIn = HTTPRequestPart
    package typealias InboundOut = HTTPRequestPart
    package typealias OutboundIn = HTTPResponsePart
    package typealias OutboundOut = HTTPResponsePart

    private let timeout: TimeAmount
    /// Between requests: bytes that arrive now begin a head.
    private var awaitingHead = true
    /// When the first byte of the pending head arrived; nil while no head is pending.
    private var headStarted: NIODeadline?
    private var check: Scheduled<Void>?

    package init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    package func handlerAdded(context: ChannelHandlerContext) {
        try? context.pipeline.syncOperations.addHandler(FirstBytes(owner: self), position: .first)
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        check?.cancel()
        check = nil
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) {
            awaitingHead = false
            headStarted = nil
        }
        context.fireChannelRead(data)
    }

    package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { awaitingHead = true }
        context.write(data, promise: promise)
    }

    /// Bytes arrived: the first of a head starts its clock.
    fileprivate func bytesArrived(on channel: any Channel) {
        guard awaitingHead, headStarted == nil else { return }
        let now = NIODeadline.now()
        headStarted = now
        if check == nil { scheduleCheck(at: now + timeout, on: channel) }
    }

    /// Closes the connection when the pending head is late; looks again when the one pending then would be.
    private func scheduleCheck(at deadline: NIODeadline, on channel: any Channel) {
        check = channel.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [weak self] in
            guard let self else { return }
            self.check = nil
            guard let started = self.headStarted else { return }
            if NIODeadline.now() >= started + self.timeout {
                channel.close(promise: nil)
            } else {
                self.scheduleCheck(at: started + self.timeout, on: channel)
            }
        }
    }

    /// Hears the connection's raw bytes, before the decoder.
    private final class FirstBytes: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = ByteBuffer
        typealias InboundOut = ByteBuffer
        private weak var owner: RequestHeadTimeout?

        init(owner: RequestHeadTimeout) {
            self.owner = owner
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            owner?.bytesArrived(on: context.channel)
            context.fireChannelRead(data)
        }
    }
}
