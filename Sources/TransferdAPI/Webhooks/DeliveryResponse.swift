import Foundation
import Hummingbird
import TransferdDomain

/// A delivery as the API shows it, with its attempts.
struct DeliveryResponse: ResponseEncodable, Sendable {
    struct Attempt: Encodable, Sendable {
        var attemptedAt: Date
        var statusCode: Int?
        var latencyMs: Int
        var error: String?
        /// Sent as its endpoint's probe, outside the delivery's schedule.
        var probe: Bool
        /// The first KiB of the reply's body.
        var reply: String?
    }

    var id: Int64
    var sequence: Int64
    var eventType: EventType
    var taskIdentifier: Int64?
    var messageId: String
    var status: Delivery.Status
    var attemptCount: Int
    /// When the next attempt is due, while pending.
    var nextAttemptAt: Date?
    var lastError: String?
    var createdAt: Date
    var completedAt: Date?
    var attempts: [Attempt]

    init(_ delivery: Delivery, attempts: [DeliveryAttempt]) {
        id = delivery.rowID
        sequence = delivery.sequence
        eventType = delivery.eventType
        taskIdentifier = delivery.taskIdentifier
        messageId = delivery.messageId
        status = delivery.status
        attemptCount = delivery.attemptCount
        nextAttemptAt = delivery.status == .pending ? delivery.nextAttemptAt : nil
        lastError = delivery.lastError
        createdAt = delivery.createdAt
        completedAt = delivery.completedAt
        self.attempts = attempts.map {
            Attempt(
                attemptedAt: $0.attemptedAt,
                statusCode: $0.statusCode,
                latencyMs: $0.latencyMs,
                error: $0.error,
                probe: $0.probe,
                reply: $0.reply
            )
        }
    }
}
