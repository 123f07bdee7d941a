import Foundation

/// A session as the API shows it: the fields this client reads.
struct SessionView: Decodable, Sendable {
    var identifier: String
    var state: String
    var taskCounts: [String: Int]
    var storedBytes: Int64
    var lastEventSequence: Int64
    var lastAcknowledgedSequence: Int64
    var pendingDeliveries: Int
    var webhookState: String?
    var createdAt: Date
}
