import Foundation

/// An event as the API shows it (in a batch, or as a stream message's data): the fields this client reads.
struct EventView: Decodable, Sendable {
    struct Data: Decodable, Sendable {
        var totalBytesWritten: Int64?
        var totalBytesExpectedToWrite: Int64?
        var totalBytesSent: Int64?
        var totalBytesExpectedToSend: Int64?
        var fileOffset: Int64?
        var error: TaskView.Failure?
        var state: String?
    }

    /// The event's session (only on the tenant's events).
    var session: String?
    var sequence: Int64
    var type: String
    var taskIdentifier: Int?
    var data: Data
    var createdAt: Date

    /// The bytes moved so far and the total, when the event says.
    var progress: (done: Int64, total: Int64)? {
        if let done = data.totalBytesWritten { return (done, data.totalBytesExpectedToWrite ?? -1) }
        if let done = data.totalBytesSent { return (done, data.totalBytesExpectedToSend ?? -1) }
        return nil
    }
}

/// A batch of a session's events.
struct EventBatchView: Decodable, Sendable {
    var items: [EventView]
    var nextAfter: Int64
}
