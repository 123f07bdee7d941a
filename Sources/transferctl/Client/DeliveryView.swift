import Foundation

/// A webhook delivery as the API shows it: the fields this client reads.
struct DeliveryView: Decodable, Sendable {
    var id: Int64
    var sequence: Int64
    var eventType: String
    var taskIdentifier: Int?
    var status: String
    var attemptCount: Int
    var lastError: String?
    var nextAttemptAt: Date?
    var createdAt: Date
}
