import Foundation
import GRDB

/// One transfer of a session, after NSURLSessionTask: what to fetch, where it stands, and what came of it.
struct TransferTask: Codable, Sendable, SnakeCaseColumns, MutablePersistableRecord {
    /// What the task does.
    enum Kind: String, Codable, Sendable, CaseIterable {
        case download
        case upload
    }

    static let databaseTableName = "tasks"

    /// Internal row id, unique across sessions; names the task's files on disk.
    var id: Int64?
    var sessionId: Int64
    /// The client-visible identifier, unique within the session.
    var taskIdentifier: Int64
    var kind: Kind
    var state: TaskState
    var taskDescription: String?
    var priority: Double
    var originalRequest: TransferRequest
    /// `host:port` of the URL: the per-host connection limit counts by it.
    var origin: String
    /// The URL after redirects, once the task has reached it.
    var currentUrl: String?
    var response: TransferResponse?
    var countOfBytesReceived: Int64
    /// -1 while unknown.
    var countOfBytesExpected: Int64
    var error: TransferError?
    var file: StoredFile?
    /// The digest the client expects, verified before the download counts as finished.
    var checksum: Checksum?
    /// The client's `earliestBeginDate`: the task does not start before it.
    var earliestBeginDate: Date?
    /// The scheduler does not start the task before this: its earliest begin date, or the end of a retry backoff.
    var nextAttemptAt: Date?
    /// Every attempt so far, oldest first.
    var attempts: [TransferAttempt]
    /// Why a running task waits for `nextAttemptAt` (`retryBackoff`, `waitingForConnectivity`, `outOfSpace`); nil when it
    /// waits for its earliest begin date.
    var waitingReason: String?
    /// The checkpoint of the partial file: bytes flushed to disk that a later attempt may keep.
    var partialBytes: Int64 = 0
    /// The validator of the response the partial bytes came from; nil when they cannot be continued.
    var resumeValidator: ResumeValidator?
    var notResumableReason: ResumeValidator.NotResumableReason?
    /// A cancel asked for resume data: the completion keeps the partial file and issues a token.
    var produceResumeData = false
    /// Parallel range requests for the body (1 = one stream).
    var connections: Int = 1
    /// The task's own bandwidth limit; nil for none.
    var maxBytesPerSecond: Int64?
    /// A download's own size cap; nil for the service's.
    var maxBytes: Int64?
    /// What an upload sends, as the client named it.
    var uploadFrom: UploadSource?
    /// The staged file (row id) an upload sends.
    var sourceFileId: Int64?
    /// The download (row id) whose content an upload sends.
    var sourceTaskId: Int64?
    var multipart: MultipartForm?
    var countOfBytesSent: Int64 = 0
    /// The upload's body length, -1 for downloads.
    var countOfBytesExpectedToSend: Int64 = -1
    /// The final response's body of an upload, once kept.
    var reply: StoredReply?
    /// The background task (its public id) the transfer belongs to.
    var backgroundTask: String?
    /// The error a pending cancellation completes the task with, when not the plain `cancelled`.
    var cancellation: TransferError?
    var createdAt: Date
    var startedAt: Date?
    var completedAt: Date?

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    /// Row id of a task read from the database (always set once inserted).
    var rowID: Int64 {
        guard let id else { preconditionFailure("task \(taskIdentifier) has not been inserted") }
        return id
    }
}

extension TransferTask {
    enum Columns {
        static let sessionId = Column("session_id")
        static let taskIdentifier = Column("task_identifier")
        static let state = Column("state")
        static let priority = Column("priority")
        static let nextAttemptAt = Column("next_attempt_at")
    }
}

extension TransferTask {
    static func fetch(_ db: Database, sessionID: Int64, taskIdentifier: Int64) throws -> TransferTask? {
        try TransferTask
            .filter(Columns.sessionId == sessionID && Columns.taskIdentifier == taskIdentifier)
            .fetchOne(db)
    }
}
