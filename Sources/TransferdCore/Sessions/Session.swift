import Foundation
import GRDB

/// A background session: a client-named container of transfer tasks with one configuration and one event log.
struct Session: Codable, Sendable, SnakeCaseColumns, MutablePersistableRecord {
    /// Lifecycle of a session, after NSURLSession's invalidation.
    enum State: String, Codable, Sendable {
        case active, invalidating, invalidated
    }

    static let databaseTableName = "sessions"

    /// Internal row id; never shown to clients (they use `identifier`).
    var id: Int64?
    var identifier: String
    /// The tenant the session belongs to; identifiers are unique per tenant.
    var tenantId: Int64
    var state: State
    /// Whether an invalidation in progress cancels the remaining tasks (invalidateAndCancel).
    var cancelOnInvalidate: Bool
    var configuration: SessionConfiguration
    /// Sequence number of the newest event in the session's log.
    var lastSequence: Int64
    /// Largest task identifier handed out so far.
    var lastTaskIdentifier: Int64
    /// Sequence of the newest event the webhook subscriber acknowledged.
    var lastAcknowledgedSequence: Int64
    var createdAt: Date
    var invalidatedAt: Date?

    init(identifier: String, tenantId: Int64, configuration: SessionConfiguration, createdAt: Date) {
        self.identifier = identifier
        self.tenantId = tenantId
        self.state = .active
        self.cancelOnInvalidate = false
        self.configuration = configuration
        self.lastSequence = 0
        self.lastTaskIdentifier = 0
        self.lastAcknowledgedSequence = 0
        self.createdAt = createdAt
    }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    /// Row id of a session read from the database (always set once inserted).
    var rowID: Int64 {
        guard let id else { preconditionFailure("session \(identifier) has not been inserted") }
        return id
    }
}
