import Foundation

/// The arguments of a delegate callback, stored with its event and shown as the event's `data`.
///
/// Fields that do not apply to an event type are absent.
package struct EventData: Codable, Sendable, Equatable {
    /// `task.progress`: bytes written since the previous progress event.
    package var bytesWritten: Int64?
    /// `task.progress`: bytes written so far.
    package var totalBytesWritten: Int64?
    /// `task.progress`: the expected total, -1 while unknown.
    package var totalBytesExpectedToWrite: Int64?
    /// `task.upload_progress`: bytes sent since the previous upload progress event.
    package var bytesSent: Int64?
    /// `task.upload_progress`: bytes sent so far.
    package var totalBytesSent: Int64?
    /// `task.upload_progress`: the body's length.
    package var totalBytesExpectedToSend: Int64?
    /// `task.finished_downloading`: the finished file.
    package var file: StoredFile?
    /// `task.finished_downloading`: where the client fetches the content.
    package var location: String?
    /// `task.completed`: null on success.
    package var error: TransferError?
    /// `task.completed`, `task.suspended`, `task.resumed`: the task's state after the event.
    package var state: TaskState?
    /// `background_task.*`: the background task's id, name and the seconds it had left.
    package var backgroundTask: String?
    package var name: String?
    package var backgroundTimeRemaining: Double?
    /// `task.resumed_at_offset`: where in the file the transfer continued (0 when it had to start again).
    package var fileOffset: Int64?
    /// `task.resumed_at_offset`: why it started again from 0 instead of continuing.
    package var restartReason: RestartReason?

    /// `task.redirected`: the redirect's status, the URL that answered it and the URL it leads to.
    package var statusCode: Int?
    package var fromURL: String?
    package var toURL: String?
    /// `task.redirected`: whether the transfer went on to `toURL` (the redirect policy's answer).
    package var followed: Bool?
    /// `task.completed`: didFinishCollecting, the task's metrics.
    package var metrics: TaskMetrics?
    /// `task.authentication_challenge`: where credentials are asked for, how many failed before, and until when
    /// an answer is awaited.
    package var protectionSpace: ProtectionSpace?
    package var previousFailureCount: Int?
    package var answerBefore: Date?

    /// Distinguishes a `task.completed` with `error: null` from events that have no `error` member at all.
    package var includesError = false

    package enum CodingKeys: String, CodingKey {
        case bytesWritten, totalBytesWritten, totalBytesExpectedToWrite, bytesSent, totalBytesSent, totalBytesExpectedToSend
        case file, location, error, state, fileOffset, restartReason, backgroundTask, name, backgroundTimeRemaining
        case statusCode, fromURL, toURL, followed, metrics, protectionSpace, previousFailureCount, answerBefore
    }

    package init(
        bytesWritten: Int64? = nil,
        totalBytesWritten: Int64? = nil,
        totalBytesExpectedToWrite: Int64? = nil,
        bytesSent: Int64? = nil,
        totalBytesSent: Int64? = nil,
        totalBytesExpectedToSend: Int64? = nil,
        file: StoredFile? = nil,
        location: String? = nil,
        state: TaskState? = nil,
        fileOffset: Int64? = nil,
        restartReason: RestartReason? = nil
    ) {
        self.bytesWritten = bytesWritten
        self.totalBytesWritten = totalBytesWritten
        self.totalBytesExpectedToWrite = totalBytesExpectedToWrite
        self.bytesSent = bytesSent
        self.totalBytesSent = totalBytesSent
        self.totalBytesExpectedToSend = totalBytesExpectedToSend
        self.file = file
        self.location = location
        self.state = state
        self.fileOffset = fileOffset
        self.restartReason = restartReason
    }

    /// The data of `task.completed`: `error` is always present, null on success; `metrics` once a transfer ran.
    package static func completion(error: TransferError?, metrics: TaskMetrics?) -> EventData {
        var data = EventData(state: .completed)
        data.error = error
        data.metrics = metrics
        data.includesError = true
        return data
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        bytesWritten = try container.decodeIfPresent(Int64.self, forKey: .bytesWritten)
        totalBytesWritten = try container.decodeIfPresent(Int64.self, forKey: .totalBytesWritten)
        totalBytesExpectedToWrite = try container.decodeIfPresent(Int64.self, forKey: .totalBytesExpectedToWrite)
        bytesSent = try container.decodeIfPresent(Int64.self, forKey: .bytesSent)
        totalBytesSent = try container.decodeIfPresent(Int64.self, forKey: .totalBytesSent)
        totalBytesExpectedToSend = try container.decodeIfPresent(Int64.self, forKey: .totalBytesExpectedToSend)
        file = try container.decodeIfPresent(StoredFile.self, forKey: .file)
        location = try container.decodeIfPresent(String.self, forKey: .location)
        state = try container.decodeIfPresent(TaskState.self, forKey: .state)
        fileOffset = try container.decodeIfPresent(Int64.self, forKey: .fileOffset)
        restartReason = try container.decodeIfPresent(RestartReason.self, forKey: .restartReason)
        backgroundTask = try container.decodeIfPresent(String.self, forKey: .backgroundTask)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        backgroundTimeRemaining = try container.decodeIfPresent(Double.self, forKey: .backgroundTimeRemaining)
        statusCode = try container.decodeIfPresent(Int.self, forKey: .statusCode)
        fromURL = try container.decodeIfPresent(String.self, forKey: .fromURL)
        toURL = try container.decodeIfPresent(String.self, forKey: .toURL)
        followed = try container.decodeIfPresent(Bool.self, forKey: .followed)
        metrics = try container.decodeIfPresent(TaskMetrics.self, forKey: .metrics)
        protectionSpace = try container.decodeIfPresent(ProtectionSpace.self, forKey: .protectionSpace)
        previousFailureCount = try container.decodeIfPresent(Int.self, forKey: .previousFailureCount)
        answerBefore = try container.decodeIfPresent(Date.self, forKey: .answerBefore)
        includesError = container.contains(.error)
        error = try container.decodeIfPresent(TransferError.self, forKey: .error)
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(bytesWritten, forKey: .bytesWritten)
        try container.encodeIfPresent(totalBytesWritten, forKey: .totalBytesWritten)
        try container.encodeIfPresent(totalBytesExpectedToWrite, forKey: .totalBytesExpectedToWrite)
        try container.encodeIfPresent(bytesSent, forKey: .bytesSent)
        try container.encodeIfPresent(totalBytesSent, forKey: .totalBytesSent)
        try container.encodeIfPresent(totalBytesExpectedToSend, forKey: .totalBytesExpectedToSend)
        try container.encodeIfPresent(file, forKey: .file)
        try container.encodeIfPresent(location, forKey: .location)
        try container.encodeIfPresent(state, forKey: .state)
        try container.encodeIfPresent(fileOffset, forKey: .fileOffset)
        try container.encodeIfPresent(restartReason, forKey: .restartReason)
        try container.encodeIfPresent(backgroundTask, forKey: .backgroundTask)
        try container.encodeIfPresent(name, forKey: .name)
        try container.encodeIfPresent(backgroundTimeRemaining, forKey: .backgroundTimeRemaining)
        try container.encodeIfPresent(statusCode, forKey: .statusCode)
        try container.encodeIfPresent(fromURL, forKey: .fromURL)
        try container.encodeIfPresent(toURL, forKey: .toURL)
        try container.encodeIfPresent(followed, forKey: .followed)
        try container.encodeIfPresent(metrics, forKey: .metrics)
        try container.encodeIfPresent(protectionSpace, forKey: .protectionSpace)
        try container.encodeIfPresent(previousFailureCount, forKey: .previousFailureCount)
        try container.encodeIfPresent(answerBefore, forKey: .answerBefore)
        if includesError {
            try container.encode(error, forKey: .error)
        }
    }
}

extension EventData {
    /// The data of a `task.authentication_challenge` event.
    package init(challenge: AuthenticationChallenge) {
        self.init()
        protectionSpace = challenge.protectionSpace
        previousFailureCount = challenge.previousFailureCount
        answerBefore = challenge.expiresAt
    }

    /// The data of a `task.redirected` event; the URLs as the API shows them (credentials left out).
    package init(redirect statusCode: Int, from: String, to: String, followed: Bool) {
        self.init()
        self.statusCode = statusCode
        fromURL = Redaction.url(from)
        toURL = Redaction.url(to)
        self.followed = followed
    }

    /// The data of a `background_task.*` event.
    package init(backgroundTask: BackgroundTask, at now: Date) {
        self.init()
        self.backgroundTask = backgroundTask.publicId
        name = backgroundTask.name
        backgroundTimeRemaining = backgroundTask.remaining(at: now)
    }
}
