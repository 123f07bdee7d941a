import Foundation
import GRDB

/// One try at handing a delivery to the subscriber, kept for inspection.
struct DeliveryAttempt: Codable, Sendable, SnakeCaseColumns, MutablePersistableRecord {
    static let databaseTableName = "delivery_attempts"

    var id: Int64?
    var deliveryId: Int64
    var attemptedAt: Date
    /// The subscriber's status, or nil when no response came (timeout, connection error).
    var statusCode: Int?
    var latencyMs: Int
    var error: String?
}
