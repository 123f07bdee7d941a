import Foundation

/// A background session: a client-named container of transfer tasks with one configuration and one event log.
package struct Session: Codable, Sendable, Persisted {
    /// Lifecycle of a session, after NSURLSession's invalidation.
    package enum State: String, Codable, Sendable {
        case active, invalidating, invalidated
    }

    /// Internal row id; never shown to clients (they use `identifier`).
    package var id: Int64?
    package var identifier: String
    /// The tenant the session belongs to; identifiers are unique per tenant.
    package var tenantId: Int64
    package var state: State
    /// Whether an invalidation in progress cancels the remaining tasks (invalidateAndCancel).
    package var cancelOnInvalidate: Bool
    package var configuration: SessionConfiguration
    /// Sequence number of the newest event in the session's log.
    package var lastSequence: Int64
    /// Largest task identifier handed out so far.
    package var lastTaskIdentifier: Int64
    /// Sequence of the newest event the webhook subscriber acknowledged.
    package var lastAcknowledgedSequence: Int64
    /// The last sequence removed from the start of its event log as history past keeping (0: none).
    package var eventsTrimmedThrough: Int64 = 0
    /// Credentials kept for the session's protection spaces (`persistence: forSession`), sealed.
    package var credentials: [SealedCredential] = []
    package var createdAt: Date
    package var invalidatedAt: Date?
    /// When `DELETE` removed it from the API; what it holds goes in the history's passes, then its row.
    package var deletedAt: Date?

    package init(identifier: String, tenantId: Int64, configuration: SessionConfiguration, createdAt: Date) {
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

    /// The oldest sequence its event log still holds, or will: every event from it on is there, gap-free.
    package var earliestSequence: Int64 { eventsTrimmedThrough + 1 }
}

extension Session {
    /// What a session's representation needs besides the row: task counts, the webhook and its backlog.
    package struct Details: Sendable {
        package var tenant = ""
        package var taskCounts: [TaskState: Int] = [:]
        package var webhook: WebhookSubscription?
        package var pendingDeliveries = 0
        /// Bytes the session's tasks keep on disk: contents, reply bodies and partial files.
        package var storedBytes: Int64 = 0

        package init() {}
    }
}
