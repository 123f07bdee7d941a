import TransferdClient

// The API's JSON as TransferdClient's types, generated from openapi.yaml: transferctl decodes the answers it reads
// into them, and keeps no descriptions of the wire of its own.

typealias APITask = Components.Schemas.Task
typealias APISession = Components.Schemas.Session
typealias APIEvent = Components.Schemas.Event
typealias APIDelivery = Components.Schemas.Delivery
typealias APIFetch = Components.Schemas.Fetch
typealias APIFetchList = Operations.ListFetches.Output.Ok.Body.JsonPayload

extension APITask {
    /// The bytes moved so far and the total (-1 while unknown): received for a download, sent for an upload.
    var bytes: (done: Int64, total: Int64) {
        kind == .upload
            ? (Int64(countOfBytesSent), Int64(countOfBytesExpectedToSend))
            : (Int64(countOfBytesReceived), Int64(countOfBytesExpectedToReceive))
    }

    /// Where it stands in a word or two: `failed: timedOut`, `waiting: retryBackoff`, `completed`, ….
    var status: String {
        if state == .completed { return error.map { "failed: \($0.code.rawValue)" } ?? "completed" }
        if state == .running, let waitingReason { return "waiting: \(waitingReason.rawValue)" }
        return state.rawValue
    }
}

extension APIEvent {
    /// The bytes moved so far and the total, when the event says.
    var progress: (done: Int64, total: Int64)? {
        if let done = data.totalBytesWritten { return (Int64(done), Int64(data.totalBytesExpectedToWrite ?? -1)) }
        if let done = data.totalBytesSent { return (Int64(done), Int64(data.totalBytesExpectedToSend ?? -1)) }
        return nil
    }
}

extension Components.Schemas.TaskState {
    /// The states of a task that has not completed.
    static let unfinished: [Self] = [.suspended, .running, .canceling]
}

/// An event as a stream or a batch carries it, with its session on the tenant's events (`/v1/events`), where the
/// spec adds `session` to the event. It reads as the event.
@dynamicMemberLookup
struct SessionEvent: Decodable, Sendable {
    var event: APIEvent
    var session: String?

    init(from decoder: any Decoder) throws {
        event = try APIEvent(from: decoder)
        session = try decoder.container(keyedBy: Keys.self).decodeIfPresent(String.self, forKey: .session)
    }

    private enum Keys: String, CodingKey { case session }

    subscript<Value>(dynamicMember field: KeyPath<APIEvent, Value>) -> Value { event[keyPath: field] }

    /// The event's type, as the API names it (`task.completed`).
    var type: String { event._type.rawValue }
}

/// A batch of events, of a session or of the tenant.
struct SessionEventBatch: Decodable, Sendable {
    var items: [SessionEvent]
}

typealias APIStoredFile = Components.Schemas.StoredFile
typealias APITaskPage = Components.Schemas.TaskPage
typealias APITaskBatch = Components.Schemas.TaskBatch
typealias APISessionPage = Components.Schemas.SessionPage
typealias APIDeliveryPage = Components.Schemas.DeliveryPage
typealias APITaskState = Components.Schemas.TaskState
