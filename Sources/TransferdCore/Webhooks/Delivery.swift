import Foundation
import GRDB

/// One event on its way to a session's subscriber: a row of the outbox, written in the event's transaction.
struct Delivery: Codable, Sendable, SnakeCaseColumns, MutablePersistableRecord {
    enum Status: String, Codable, Sendable, CaseIterable {
        /// Waiting for its turn or its next attempt.
        case pending
        /// The subscriber answered 2xx.
        case delivered
        /// Dead-lettered: every attempt failed, or the subscription was disabled. The event stays readable by polling.
        case failed
        /// A later `task.progress` of the same task superseded it before it was delivered.
        case coalesced
    }

    static let databaseTableName = "deliveries"

    var id: Int64?
    var sessionId: Int64
    var eventId: Int64
    var sequence: Int64
    var eventType: EventType
    var taskIdentifier: Int64?
    /// The `webhook-id` header, stable across attempts so that receivers can deduplicate.
    var messageId: String
    var status: Status
    var attemptCount: Int
    var nextAttemptAt: Date
    var lastError: String?
    var createdAt: Date
    var completedAt: Date?

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    var rowID: Int64 {
        guard let id else { preconditionFailure("delivery \(messageId) has not been inserted") }
        return id
    }

    enum Columns {
        static let sessionId = Column("session_id")
        static let status = Column("status")
        static let sequence = Column("sequence")
    }
}
