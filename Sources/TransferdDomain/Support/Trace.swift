import Tracing

/// The W3C `traceparent` that the current work continues: the span it runs in when tracing is on (OpenTelemetry,
/// bootstrapped by `transferd serve`), else the request's own header, if it came with one. The writes it causes take
/// it along (`Repositories.traceparent`), so that the webhook deliveries of the events they append carry it on.
package enum Trace {
    @TaskLocal package static var parent: String?

    /// The `traceparent` of `context`'s span, as the bootstrapped instrument writes it; nil without a span or with
    /// tracing off (the no-op instrument writes nothing).
    package static func traceparent(of context: ServiceContext? = .current) -> String? {
        guard let context else { return nil }
        var carrier = Carrier()
        InstrumentationSystem.instrument.inject(context, into: &carrier, using: Carrier.Access())
        return carrier.traceparent
    }

    /// A context whose span is the one `traceparent` names: spans started in it continue that trace, after a restart
    /// or on another instance. Empty with tracing off, or without a `traceparent`.
    package static func context(continuing traceparent: String?) -> ServiceContext {
        var context = ServiceContext.topLevel
        guard let traceparent else { return context }
        InstrumentationSystem.instrument.extract(Carrier(traceparent: traceparent), into: &context, using: Carrier.Access())
        return context
    }

    /// Runs `body` in `span`: the span's context is the current one, and its `traceparent` the one writes take along.
    package static func within<T>(_ span: any Span, _ body: () async throws -> T) async rethrows -> T {
        try await ServiceContext.withValue(span.context) {
            try await $parent.withValue(traceparent(of: span.context) ?? parent, operation: body)
        }
    }

    /// The one header of W3C Trace Context that transferd keeps (`tracestate` is not kept with tasks or events).
    private struct Carrier {
        var traceparent: String?

        struct Access: Injector, Extractor {
            func inject(_ value: String, forKey key: String, into carrier: inout Carrier) {
                if key.lowercased() == "traceparent" { carrier.traceparent = value }
            }

            func extract(key: String, from carrier: Carrier) -> String? {
                key.lowercased() == "traceparent" ? carrier.traceparent : nil
            }
        }
    }
}
