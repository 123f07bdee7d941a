import Foundation

/// One try at handing a delivery to the subscriber, kept for inspection: when, how it was answered and how fast,
/// and the start of the reply's body.
package struct DeliveryAttempt: Codable, Sendable, Persisted {

    package var id: Int64?
    package var deliveryId: Int64
    package var attemptedAt: Date
    /// The subscriber's status, or nil when no response came (timeout, connection error).
    package var statusCode: Int?
    package var latencyMs: Int
    package var error: String?
    /// Sent as its endpoint's probe, outside the delivery's schedule.
    package var probe: Bool
    /// The first `replyExcerptLimit` bytes of the reply's body, as text, when it had one.
    package var reply: String?

    /// How much of a reply's body an attempt keeps.
    package static let replyExcerptLimit = 1024

    package init(
        id: Int64? = nil,
        deliveryId: Int64,
        attemptedAt: Date,
        statusCode: Int? = nil,
        latencyMs: Int,
        error: String? = nil,
        probe: Bool = false,
        reply: String? = nil
    ) {
        self.id = id
        self.deliveryId = deliveryId
        self.attemptedAt = attemptedAt
        self.statusCode = statusCode
        self.latencyMs = latencyMs
        self.error = error
        self.probe = probe
        self.reply = reply
    }
}
