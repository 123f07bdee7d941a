import Foundation

/// One try at handing a delivery to the subscriber, kept for inspection.
package struct DeliveryAttempt: Codable, Sendable, Persisted {

    package var id: Int64?
    package var deliveryId: Int64
    package var attemptedAt: Date
    /// The subscriber's status, or nil when no response came (timeout, connection error).
    package var statusCode: Int?
    package var latencyMs: Int
    package var error: String?

    package init(
        id: Int64? = nil,
        deliveryId: Int64,
        attemptedAt: Date,
        statusCode: Int? = nil,
        latencyMs: Int,
        error: String? = nil
    ) {
        self.id = id
        self.deliveryId = deliveryId
        self.attemptedAt = attemptedAt
        self.statusCode = statusCode
        self.latencyMs = latencyMs
        self.error = error
    }
}
