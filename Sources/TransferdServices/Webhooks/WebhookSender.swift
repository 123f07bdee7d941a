import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Tracing
import TransferdDomain
import TransferdEngine

/// One attempt's HTTP exchange: the payload signed as Standard Webhooks says, POSTed through the destination guard,
/// and how the subscriber answered. One deadline covers the whole exchange, connection, head and body, of which at
/// most `replyLimit` bytes are read.
struct WebhookSender: Sendable {
    let destinations: DestinationGuard
    let timeout: Duration
    let clock: any WallClock

    /// The most of a subscriber's reply read: a challenge's answer fits in it.
    static let replyLimit = 64 << 10

    /// How one attempt went.
    struct Exchange: Sendable {
        let attemptedAt: Date
        let answer: DeliveryAnswer
        let latency: Duration
        /// The start of the reply's body (``DeliveryAttempt/replyExcerptLimit`` bytes), when it had one.
        let excerpt: String?
        /// The whole of a 2xx reply when it was asked for, and no longer than `replyLimit`; empty otherwise.
        let reply: ByteBuffer
    }

    /// Sends `content` as the delivery `messageID`; `keepingReply` keeps a 2xx reply's body (a challenge's answer,
    /// the completion handler in the same round trip). Nil when the task was cancelled (the service is stopping).
    ///
    /// The attempt is a `send` span in the trace of the request or attempt that wrote the event, and the request's
    /// client span (AsyncHTTPClient's) sends its `traceparent` on. With tracing off the event's own `traceparent` is.
    func send(_ content: DeliveryContent, messageID: String, keepingReply: Bool) async throws -> Exchange? {
        let (event, webhook) = (content.event, content.webhook)
        let attemptedAt = clock.now
        let body = try WebhookPayload(event: event, sessionIdentifier: content.sessionIdentifier, task: content.task, now: attemptedAt)
            .encoded()
        let span = InstrumentationSystem.tracer.startSpan(
            SpanNames.send,
            context: Trace.context(continuing: event.traceparent),
            ofKind: .producer
        )
        defer { span.end() }
        SpanNames.mark(span, as: SpanNames.send)
        span.attributes[SpanNames.Key.destination] = content.sessionIdentifier
        span.attributes[SpanNames.Key.messageID] = messageID
        span.attributes[SpanNames.Key.eventType] = event.type.rawValue
        let exchange = await ServiceContext.withValue(span.context) {
            await post(
                body,
                to: webhook.url,
                messageID: messageID,
                secrets: webhook.signingSecrets(at: attemptedAt),
                traceparent: Trace.traceparent(of: span.context) == nil ? event.traceparent : nil,
                at: attemptedAt,
                keepingReply: keepingReply
            )
        }
        switch exchange?.answer {
        case .answered(let status, _) where (200..<300).contains(status): span.setStatus(SpanStatus(code: .ok))
        case .answered(let status, _): span.setStatus(SpanStatus(code: .error, message: "The subscriber answered \(status)."))
        case .failed(let message): span.setStatus(SpanStatus(code: .error, message: message))
        case nil: span.addEvent("interrupted")
        }
        return exchange
    }

    /// POSTs `body` to `url`, signed with `secrets` as the message `messageID` at `attemptedAt`. Nil when the task
    /// was cancelled.
    func post(
        _ body: Data,
        to url: String,
        messageID: String,
        secrets: [WebhookSecret],
        traceparent: String? = nil,
        at attemptedAt: Date,
        keepingReply: Bool = false
    ) async -> Exchange? {
        let timestamp = Int(attemptedAt.timeIntervalSince1970)
        var request = HTTPClientRequest.transfer(to: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: "transferd")
        request.headers.add(name: "webhook-id", value: messageID)
        if let traceparent { request.headers.add(name: "traceparent", value: traceparent) }
        request.headers.add(name: "webhook-timestamp", value: String(timestamp))
        request.headers.add(
            name: "webhook-signature",
            value: WebhookSigner.signature(messageID: messageID, timestamp: timestamp, body: body, secrets: secrets)
        )
        request.body = .bytes(ByteBuffer(bytes: body))
        let started = ContinuousClock.now
        do {
            let route = try await destinations.route(for: request.url)
            let reply = try await withDeadline(timeout) { [request] in
                try await Self.exchange(request, through: route, keepingReply: keepingReply)
            }
            let answer = DeliveryAnswer.answered(status: reply.status, retryAfter: RetryAfter.parse(reply.retryAfter, now: clock.now))
            return Exchange(
                attemptedAt: attemptedAt,
                answer: answer,
                latency: ContinuousClock.now - started,
                excerpt: reply.excerpt,
                reply: reply.kept
            )
        } catch {
            if Task.isCancelled, !(error is DeadlineExceeded) { return nil }
            let message =
                if let exceeded = error as? DeadlineExceeded {
                    "The subscriber did not answer, body included, within \(exceeded.limit.timeInterval) s."
                } else {
                    TransferError(transportError: error).message
                }
            let latency = ContinuousClock.now - started
            return Exchange(attemptedAt: attemptedAt, answer: .failed(message), latency: latency, excerpt: nil, reply: ByteBuffer())
        }
    }

    /// How a subscriber answered: its status, `Retry-After`, the start of its body, and its 2xx body when
    /// `keepingReply`. A body longer than `replyLimit` is not read further, its connection closed, and kept for
    /// nothing; the answer still counts. The deadline is the caller's, on the whole exchange.
    private static func exchange(
        _ request: HTTPClientRequest,
        through route: DestinationGuard.Route,
        keepingReply: Bool
    ) async throws -> (status: Int, retryAfter: String?, excerpt: String?, kept: ByteBuffer) {
        let response = try await route.execute(request, deadline: .distantFuture)
        let (status, retryAfter) = (Int(response.status.code), response.headers.first(name: "retry-after"))
        let keeping = keepingReply && (200..<300).contains(status)
        var (start, kept, read) = (ByteBuffer(), ByteBuffer(), 0)
        for try await chunk in response.body {
            read += chunk.readableBytes
            if start.readableBytes < DeliveryAttempt.replyExcerptLimit {
                start.writeImmutableBuffer(
                    chunk.getSlice(
                        at: chunk.readerIndex,
                        length: min(chunk.readableBytes, DeliveryAttempt.replyExcerptLimit - start.readableBytes)
                    )!
                )
            }
            guard read <= replyLimit else { return (status, retryAfter, excerpt(start), ByteBuffer()) }
            if keeping { kept.writeImmutableBuffer(chunk) }
        }
        return (status, retryAfter, excerpt(start), kept)
    }

    /// A reply's first bytes as text (bytes that are not UTF-8, or a character cut at the end, read as U+FFFD).
    private static func excerpt(_ start: ByteBuffer) -> String? {
        start.readableBytes == 0 ? nil : String(decoding: start.readableBytesView, as: UTF8.self)
    }
}
