import Tracing

/// The names of transferd's own spans and their attributes, after OpenTelemetry's messaging conventions: a task is a
/// message that a request creates (`create`, a producer span) and that each attempt processes (`process`, a
/// consumer span); a webhook delivery sends an event on (`send`). The HTTP spans around them are Hummingbird's (the
/// API's requests) and AsyncHTTPClient's (every request to an origin, a bucket or a subscriber), which follow the
/// HTTP conventions themselves. The messaging keys are still experimental in swift-otel-semantic-conventions, behind a
/// trait that pins its minor version, so they are spelled here: https://opentelemetry.io/docs/specs/semconv/messaging/
package enum SpanNames {
    package static let create = "create"
    package static let process = "process"
    package static let send = "send"

    /// Attribute keys.
    package enum Key {
        package static let messagingSystem = "messaging.system"
        package static let operationType = "messaging.operation.type"
        package static let destination = "messaging.destination.name"
        package static let messageID = "messaging.message.id"
        package static let errorType = "error.type"
        package static let taskID = "transferd.task.id"
        package static let taskKind = "transferd.task.kind"
        package static let attempt = "transferd.attempt"
        package static let eventType = "transferd.event.type"
    }

    /// `messaging.system`'s value.
    package static let system = "transferd"

    /// Marks `span` as transferd's messaging `operation` (``create``, ``process``, ``send``).
    package static func mark(_ span: any Span, as operation: String) {
        span.attributes[Key.messagingSystem] = system
        span.attributes[Key.operationType] = operation
    }
}
