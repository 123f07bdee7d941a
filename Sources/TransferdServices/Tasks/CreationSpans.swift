import Tracing
import TransferdDomain

/// The spans that create tasks: one `create` (a producer span) for each new task, a child of the request's span.
/// Each task keeps its span's `traceparent`, which its attempts continue (``TransferTask/traceparent``). With tracing
/// off they are no-op spans, and tasks keep none.
struct CreationSpans {
    private let spans: [any Span]

    /// Starts a span for each of `newTasks`, of `session`, and gives each task its span's `traceparent`.
    init(_ newTasks: inout [NewTask], in session: Session) {
        spans = newTasks.indices.map { index in
            let span = InstrumentationSystem.tracer.startSpan(SpanNames.create, ofKind: .producer)
            SpanNames.mark(span, as: SpanNames.create)
            span.attributes[SpanNames.Key.destination] = session.identifier
            span.attributes[SpanNames.Key.taskKind] = newTasks[index].kind.rawValue
            newTasks[index].traceparent = Trace.traceparent(of: span.context)
            return span
        }
    }

    /// Ends the spans of the tasks `created`, in order.
    func end(_ created: [TransferTask]) {
        for (span, task) in zip(spans, created) {
            span.attributes[SpanNames.Key.messageID] = "\(task.taskIdentifier)"
            span.attributes[SpanNames.Key.taskID] = Int(task.rowID)
            span.end()
        }
    }

    /// Ends the spans of tasks that were not created, for `error`.
    func end(failing error: any Error) {
        for span in spans {
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error))
            span.end()
        }
    }
}
