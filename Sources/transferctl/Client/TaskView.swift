import Foundation

/// A task as the API shows it: the fields this client reads.
struct TaskView: Decodable, Sendable {
    struct Request: Decodable, Sendable {
        var url: String
        var method: String
    }

    struct Response: Decodable, Sendable {
        var statusCode: Int
    }

    struct Failure: Decodable, Sendable {
        var code: String
        var message: String
        var statusCode: Int?
    }

    struct File: Decodable, Sendable {
        var size: Int64
        var sha256: String
    }

    struct Attempt: Decodable, Sendable {
        var endedAt: Date
        var outcome: String
        var statusCode: Int?
        var bytes: Int64
    }

    var taskIdentifier: Int
    var kind: String
    var state: String
    var taskDescription: String?
    var priority: Double
    var originalRequest: Request
    var response: Response?
    var countOfBytesReceived: Int64
    var countOfBytesExpectedToReceive: Int64
    var countOfBytesSent: Int64
    var countOfBytesExpectedToSend: Int64
    var error: Failure?
    var file: File?
    var waitingReason: String?
    var nextAttemptAt: Date?
    var attempts: [Attempt]
    var createdAt: Date
    var completedAt: Date?

    /// The bytes moved so far and the total (-1 while unknown): received for a download, sent for an upload.
    var bytes: (done: Int64, total: Int64) {
        kind == "upload" ? (countOfBytesSent, countOfBytesExpectedToSend) : (countOfBytesReceived, countOfBytesExpectedToReceive)
    }

    /// Where it stands in a word or two: `failed: timedOut`, `waiting: retryBackoff`, `completed`, ….
    var status: String {
        if state == "completed" { return error.map { "failed: \($0.code)" } ?? "completed" }
        if state == "running", let waitingReason { return "waiting: \(waitingReason)" }
        return state
    }
}

/// A batch of new tasks (`POST …/tasks` with `tasks`).
struct TaskBatchView: Decodable, Sendable {
    var tasks: [TaskView]
}
