import Foundation
import TransferdDomain
import TransferdJSON

/// The JSON body of a delivery: `{"type", "timestamp", "data"}`, where `data` carries the session, the sequence,
/// the task and the event's own fields, and for `task.finished_downloading` and `task.completed` the task as the
/// API shows it, so that a subscriber can act without calling back.
struct WebhookPayload: Encodable {
    struct Payload: Encodable {
        var sessionIdentifier: String
        var sequence: Int64
        var taskIdentifier: Int64?
        var fields: EventPayload
        var task: TaskRepresentation?

        enum CodingKeys: String, CodingKey {
            case sessionIdentifier, sequence, taskIdentifier, task
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(sessionIdentifier, forKey: .sessionIdentifier)
            try container.encode(sequence, forKey: .sequence)
            try container.encode(taskIdentifier, forKey: .taskIdentifier)
            try container.encodeIfPresent(task, forKey: .task)
            // The event's own fields sit beside the common ones, in the same object.
            try fields.encode(to: encoder)
        }
    }

    var type: EventType
    var timestamp: Date
    var data: Payload

    init(event: Event, sessionIdentifier: String, task: TransferTask?, now: Date) {
        type = event.type
        timestamp = event.createdAt
        let includesTask = DeliveryContent.taskCarrying.contains(event.type)
        data = Payload(
            sessionIdentifier: sessionIdentifier,
            sequence: event.sequence,
            taskIdentifier: event.taskIdentifier,
            fields: event.payload,
            task: includesTask ? task.map { TaskRepresentation($0, live: nil, heldBack: nil, now: now) } : nil
        )
    }

    func encoded() throws -> Data {
        Data(try JSONCoding.encoder.encode(self))
    }
}
