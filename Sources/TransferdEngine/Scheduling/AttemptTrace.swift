import Foundation
import Logging
import Synchronization
import Tracing
import TransferdDomain

/// The span of one transfer attempt (`process`, a consumer span), which continues the trace its task was created in
/// (``TransferTask/traceparent``), after a restart or on another instance. The requests of the attempt are its
/// children (AsyncHTTPClient's client spans, which send `traceparent` on), and so are the webhook deliveries of the
/// events its end writes. Its redirects, the phases of its requests, a challenge and a retry are events in it. With
/// tracing off every span is the no-op one, and nothing is kept.
package final class AttemptTrace: Sendable {
    private let span = Mutex<(any Span)?>(nil)

    package init() {}

    /// Runs `body`, the attempt of `job` (its `attempt`-th, of a task of session `sessionID`), to its outcome in a span
    /// of its own, whose log lines name the task and the session; then ends the span with the outcome's status and the
    /// phases of `transactions`' requests.
    func run(
        _ job: TransferJob,
        attempt: Int,
        sessionID: Int64,
        transactions: @Sendable () -> [TransactionMetrics],
        _ body: () async -> TaskStateMachine.TransferOutcome
    ) async {
        let span = InstrumentationSystem.tracer.startSpan(
            SpanNames.process,
            context: Trace.context(continuing: job.traceparent),
            ofKind: .consumer
        )
        SpanNames.mark(span, as: SpanNames.process)
        span.attributes[SpanNames.Key.messageID] = "\(job.taskID)"
        span.attributes[SpanNames.Key.taskID] = Int(job.taskID)
        span.attributes[SpanNames.Key.taskKind] = job.kind.rawValue
        span.attributes[SpanNames.Key.attempt] = attempt
        self.span.withLock { $0 = span }
        let outcome = await LogContext.with(["task": "\(job.taskID)", "session": "\(sessionID)"]) { await Trace.within(span, body) }
        // The requests' phases are read and written only for a span that records: with tracing off, or a trace not
        // sampled, an attempt pays nothing for them.
        if span.isRecording {
            for transaction in transactions() { Self.note(transaction, in: span) }
        }
        switch outcome {
        case .succeeded: span.setStatus(SpanStatus(code: .ok))
        case .failed(let error):
            span.attributes[SpanNames.Key.errorType] = error.code.rawValue
            span.setStatus(SpanStatus(code: .error, message: error.message))
        case .challenged(let space, _):
            span.addEvent(SpanEvent(name: "challenge", attributes: ["transferd.challenge.host": "\(space.host)"]))
        case .interrupted: span.addEvent("interrupted")
        }
        self.span.withLock { $0 = nil }
        span.end()
    }

    /// Notes `name` in the attempt's span, while it lasts.
    package func note(_ name: String, _ attributes: SpanAttributes = [:]) {
        span.withLock { $0 }?.addEvent(SpanEvent(name: name, attributes: attributes))
    }

    /// A request's phases as events at their times: the resolution, the connection, TLS, the response head and a
    /// redirect followed.
    private static func note(_ transaction: TransactionMetrics, in span: any Span) {
        let phases: [(String, Date?)] = [
            ("dns", transaction.domainLookupEndDate), ("connect", transaction.connectEndDate),
            ("tls", transaction.secureConnectionEndDate), ("first byte", transaction.responseStartDate),
        ]
        let attributes: SpanAttributes = ["url.full": "\(transaction.url)", "http.request.method": "\(transaction.method)"]
        for case (let name, let date?) in phases { span.addEvent(SpanEvent(name: name, at: instant(date), attributes: attributes)) }
        if transaction.redirected, let status = transaction.statusCode, let end = transaction.responseStartDate {
            var redirect = attributes
            redirect["http.response.status_code"] = status
            span.addEvent(SpanEvent(name: "redirect", at: instant(end), attributes: redirect))
        }
    }

    private static func instant(_ date: Date) -> DefaultTracerClock.Timestamp {
        DefaultTracerClock.Timestamp(nanosecondsSinceEpoch: UInt64(max(0, date.timeIntervalSince1970) * 1e9))
    }
}
