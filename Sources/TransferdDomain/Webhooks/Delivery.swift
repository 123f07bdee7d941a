import Foundation

/// One event on its way to a session's subscriber: a row of the outbox, written in the event's transaction.
package struct Delivery: Codable, Sendable, Persisted {
    package enum Status: String, Codable, Sendable, CaseIterable {
        /// Waiting for its turn or its next attempt.
        case pending
        /// The subscriber answered 2xx.
        case delivered
        /// Dead-lettered: every attempt failed, or the subscription was disabled. The event stays readable by polling.
        case failed
        /// A later `task.progress` of the same task superseded it before it was delivered.
        case coalesced
    }

    package var id: Int64?
    package var sessionId: Int64
    package var eventId: Int64
    package var sequence: Int64
    package var eventType: EventType
    package var taskIdentifier: Int64?
    /// The `webhook-id` header, stable across attempts so that receivers can deduplicate.
    package var messageId: String
    package var status: Status
    package var attemptCount: Int
    package var nextAttemptAt: Date
    package var lastError: String?
    package var createdAt: Date
    package var completedAt: Date?

    package init(
        id: Int64? = nil,
        sessionId: Int64,
        eventId: Int64,
        sequence: Int64,
        eventType: EventType,
        taskIdentifier: Int64? = nil,
        messageId: String,
        status: Status,
        attemptCount: Int,
        nextAttemptAt: Date,
        lastError: String? = nil,
        createdAt: Date,
        completedAt: Date? = nil
    ) {
        self.id = id
        self.sessionId = sessionId
        self.eventId = eventId
        self.sequence = sequence
        self.eventType = eventType
        self.taskIdentifier = taskIdentifier
        self.messageId = messageId
        self.status = status
        self.attemptCount = attemptCount
        self.nextAttemptAt = nextAttemptAt
        self.lastError = lastError
        self.createdAt = createdAt
        self.completedAt = completedAt
    }
}

extension Delivery {
    /// The delivery of an event just written: pending, due at once, with a `webhook-id` of its own.
    package init(pending event: Event) {
        self.init(
            sessionId: event.sessionId,
            eventId: event.rowID,
            sequence: event.sequence,
            eventType: event.type,
            taskIdentifier: event.taskIdentifier,
            messageId: Self.newMessageID(),
            status: .pending,
            attemptCount: 0,
            nextAttemptAt: event.createdAt,
            createdAt: event.createdAt
        )
    }

    /// A new delivery's message id (`webhook-id`), which its subscriber may deduplicate by.
    package static func newMessageID() -> String {
        "msg_" + Hex.random(bytes: 16)
    }
}
