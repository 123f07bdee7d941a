import Foundation

/// One entry of a session's durable event log.
package struct Event: Sendable, Persisted {

    package var id: Int64?
    package var sessionId: Int64
    /// Position in the session's log: 1, 2, 3, … with no gaps.
    package var sequence: Int64
    package var taskIdentifier: Int64?
    /// The callback and its arguments (shown as the event's `type` and `data`).
    package var payload: EventPayload
    package var createdAt: Date
    /// The W3C `traceparent` of the request that caused it, passed on to its webhook delivery.
    package var traceparent: String?

    package init(
        id: Int64? = nil,
        sessionId: Int64,
        sequence: Int64,
        taskIdentifier: Int64? = nil,
        payload: EventPayload,
        createdAt: Date,
        traceparent: String? = nil
    ) {
        self.id = id
        self.sessionId = sessionId
        self.sequence = sequence
        self.taskIdentifier = taskIdentifier
        self.payload = payload
        self.createdAt = createdAt
        self.traceparent = traceparent
    }

    package var type: EventType { payload.type }
}
