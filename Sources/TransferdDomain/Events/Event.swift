import Foundation

/// One entry of a session's durable event log.
package struct Event: Codable, Sendable, Persisted {

    package var id: Int64?
    package var sessionId: Int64
    /// Position in the session's log: 1, 2, 3, … with no gaps.
    package var sequence: Int64
    package var type: EventType
    package var taskIdentifier: Int64?
    /// The callback's arguments, as a JSON object.
    package var data: EventData
    package var createdAt: Date
    /// The W3C `traceparent` of the request that caused it, passed on to its webhook delivery.
    package var traceparent: String?

    package init(
        id: Int64? = nil,
        sessionId: Int64,
        sequence: Int64,
        type: EventType,
        taskIdentifier: Int64? = nil,
        data: EventData,
        createdAt: Date,
        traceparent: String? = nil
    ) {
        self.id = id
        self.sessionId = sessionId
        self.sequence = sequence
        self.type = type
        self.taskIdentifier = taskIdentifier
        self.data = data
        self.createdAt = createdAt
        self.traceparent = traceparent
    }
}
