import Foundation
import Hummingbird

/// A task as the API shows it, after NSURLSessionTask's properties. Header values are never echoed, only names.
struct TaskResponse: ResponseCodable, Sendable {
    /// A request as shown: its URL, method and header names.
    struct RequestSummary: Codable, Sendable {
        var url: String
        var method: String
        var headers: [String]
    }

    struct Progress: Codable, Sendable {
        var fractionCompleted: Double
    }

    /// Why a `running` task is not transferring yet.
    enum WaitingReason: String, Codable, Sendable {
        /// Its `earliestBeginDate` has not come.
        case notBefore
        /// Its last attempt failed transiently; the next one is due at `nextAttemptAt`.
        case retryBackoff
        /// Its origin could not be reached; it is tried again at `nextAttemptAt`.
        case waitingForConnectivity
        /// The session's `maximumConnectionsPerHost` transfers to its host are under way; it runs when one ends.
        case hostLimit
        /// The data directory reached its free-space floor; it is tried again at `nextAttemptAt`.
        case outOfSpace
    }

    var taskIdentifier: Int64
    var kind: TransferTask.Kind
    var state: TaskState
    var taskDescription: String?
    var priority: Double
    var originalRequest: RequestSummary
    var currentRequest: RequestSummary?
    var response: TransferResponse?
    var countOfBytesReceived: Int64
    var countOfBytesExpectedToReceive: Int64
    var countOfBytesSent: Int64
    var countOfBytesExpectedToSend: Int64
    var progress: Progress
    var error: TransferError?
    var file: StoredFile?
    var checksum: Checksum?
    var earliestBeginDate: Date?
    var waitingReason: WaitingReason?
    /// When a waiting task may start.
    var nextAttemptAt: Date?
    var attempts: [TransferAttempt]
    /// Whether the bytes received so far can be continued with a range request (after a suspend, a failure, a
    /// restart or from resume data); `notResumableReason` says why not.
    var resumable: Bool
    var notResumableReason: ResumeValidator.NotResumableReason?
    var connections: Int
    var maxBytesPerSecond: Int64?
    /// What an upload sends.
    var from: UploadSource?
    var multipart: MultipartForm?
    /// The kept body of an upload's final response, served at `…/response-body`.
    var responseBody: StoredReply?
    /// The background task the transfer belongs to.
    var backgroundTask: String?
    var createdAt: Date
    var startedAt: Date?
    var completedAt: Date?

    /// `live` holds the counters of a transfer under way, fresher than the last checkpoint in the database;
    /// `hostIsBusy` says whether the session's connections to the task's host are all in use.
    init(_ task: TransferTask, live: (received: Int64, expected: Int64)?, hostIsBusy: Bool) {
        let headerNames = task.originalRequest.headers.keys.sorted()
        let isUpload = task.kind == .upload
        let (received, expected) = (!isUpload ? live : nil) ?? (task.countOfBytesReceived, task.countOfBytesExpected)
        let (sent, expectedToSend) = (isUpload ? live : nil) ?? (task.countOfBytesSent, task.countOfBytesExpectedToSend)
        taskIdentifier = task.taskIdentifier
        kind = task.kind
        state = task.state
        taskDescription = task.taskDescription
        priority = task.priority
        originalRequest = RequestSummary(
            url: Redaction.url(task.originalRequest.url),
            method: task.originalRequest.method,
            headers: headerNames
        )
        currentRequest = task.currentUrl.map {
            RequestSummary(url: Redaction.url($0), method: task.originalRequest.method, headers: headerNames)
        }
        response = task.response
        countOfBytesReceived = received
        countOfBytesExpectedToReceive = expected
        countOfBytesSent = sent
        countOfBytesExpectedToSend = expectedToSend
        let (done, total) = isUpload ? (sent, expectedToSend) : (received, expected)
        let fraction: Double =
            if task.file != nil || (isUpload && task.state == .completed && task.error == nil) {
                1
            } else if total > 0 {
                min(1, Double(done) / Double(total))
            } else {
                0
            }
        progress = Progress(fractionCompleted: fraction)
        error = task.error
        file = task.file
        checksum = task.checksum
        earliestBeginDate = task.earliestBeginDate
        let queued = task.state == .running && live == nil
        let waiting = queued && (task.nextAttemptAt.map { $0 > Date() } ?? false)
        waitingReason =
            if waiting { task.waitingReason.flatMap(WaitingReason.init) ?? .notBefore } else if queued && hostIsBusy { .hostLimit } else {
                nil
            }
        nextAttemptAt = waiting ? task.nextAttemptAt : nil
        attempts = task.attempts
        resumable = task.resumeValidator != nil
        notResumableReason = resumable ? nil : task.notResumableReason ?? .noResponseYet
        connections = task.connections
        maxBytesPerSecond = task.maxBytesPerSecond
        from = task.uploadFrom
        multipart = task.multipart
        responseBody = task.reply
        backgroundTask = task.backgroundTask
        createdAt = task.createdAt
        startedAt = task.startedAt
        completedAt = task.completedAt
    }

    /// Encodes `null` for absent optionals, so every task has the same set of fields.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(taskIdentifier, forKey: .taskIdentifier)
        try container.encode(kind, forKey: .kind)
        try container.encode(state, forKey: .state)
        try container.encode(taskDescription, forKey: .taskDescription)
        try container.encode(priority, forKey: .priority)
        try container.encode(originalRequest, forKey: .originalRequest)
        try container.encode(currentRequest, forKey: .currentRequest)
        try container.encode(response, forKey: .response)
        try container.encode(countOfBytesReceived, forKey: .countOfBytesReceived)
        try container.encode(countOfBytesExpectedToReceive, forKey: .countOfBytesExpectedToReceive)
        try container.encode(countOfBytesSent, forKey: .countOfBytesSent)
        try container.encode(countOfBytesExpectedToSend, forKey: .countOfBytesExpectedToSend)
        try container.encode(progress, forKey: .progress)
        try container.encode(error, forKey: .error)
        try container.encode(file, forKey: .file)
        try container.encode(checksum, forKey: .checksum)
        try container.encode(earliestBeginDate, forKey: .earliestBeginDate)
        try container.encode(waitingReason, forKey: .waitingReason)
        try container.encode(nextAttemptAt, forKey: .nextAttemptAt)
        try container.encode(attempts, forKey: .attempts)
        try container.encode(resumable, forKey: .resumable)
        try container.encode(notResumableReason, forKey: .notResumableReason)
        try container.encode(connections, forKey: .connections)
        try container.encode(maxBytesPerSecond, forKey: .maxBytesPerSecond)
        try container.encode(from, forKey: .from)
        try container.encode(multipart, forKey: .multipart)
        try container.encode(responseBody, forKey: .responseBody)
        try container.encode(backgroundTask, forKey: .backgroundTask)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(startedAt, forKey: .startedAt)
        try container.encode(completedAt, forKey: .completedAt)
    }
}
