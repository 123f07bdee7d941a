import Foundation

/// A task as the API and webhooks show it, after NSURLSessionTask's properties. Header values are never echoed, only names.
package struct TaskRepresentation: Encodable, Sendable {
    /// A request as shown: its URL, method and header names.
    package struct RequestSummary: Encodable, Sendable {
        package var url: String
        package var method: String
        package var headers: [String]
    }

    package struct Progress: Encodable, Sendable {
        package var fractionCompleted: Double
    }

    /// A fetch run's schedule, and its result once judged (null until then).
    package struct FetchRunOf: Encodable, Sendable {
        package var id: String
        @ExplicitNull package var result: FetchResult?
    }

    package var taskIdentifier: Int64
    package var kind: TransferTask.Kind
    package var state: TaskState
    @ExplicitNull package var taskDescription: String?
    package var priority: Double
    package var originalRequest: RequestSummary
    @ExplicitNull package var currentRequest: RequestSummary?
    @ExplicitNull package var response: TransferResponse?
    package var countOfBytesReceived: Int64
    package var countOfBytesExpectedToReceive: Int64
    package var countOfBytesSent: Int64
    package var countOfBytesExpectedToSend: Int64
    package var progress: Progress
    @ExplicitNull package var error: TransferError?
    @ExplicitNull package var file: StoredFile?
    @ExplicitNull package var checksum: Checksum?
    @ExplicitNull package var earliestBeginDate: Date?
    @ExplicitNull package var waitingReason: TransferTask.WaitingReason?
    /// When a waiting task may start.
    @ExplicitNull package var nextAttemptAt: Date?
    package var attempts: [TransferAttempt]
    /// Whether the bytes received so far can be continued with a range request (after a suspend, a failure, a
    /// restart or from resume data); `notResumableReason` says why not.
    package var resumable: Bool
    @ExplicitNull package var notResumableReason: ResumeValidator.NotResumableReason?
    package var connections: Int
    /// A download's other sources, credentials left out.
    package var mirrors: [String]
    @ExplicitNull package var maxBytesPerSecond: Int64?
    /// A download's own redirect policy; null when its session's applies.
    @ExplicitNull package var redirectPolicy: RedirectPolicy?
    /// The object a download goes into; null for the data directory.
    @ExplicitNull package var destination: ObjectLocation?
    /// What an upload sends.
    @ExplicitNull package var from: UploadSource?
    @ExplicitNull package var multipart: MultipartForm?
    /// The kept body of an upload's final response, served at `…/response-body`.
    @ExplicitNull package var responseBody: StoredReply?
    /// The background task the transfer belongs to.
    @ExplicitNull package var backgroundTask: String?
    /// The fetch schedule the task is a run of, and what the run gave once it was judged.
    @ExplicitNull package var fetch: FetchRunOf?
    /// URLSessionTaskMetrics, once the task completed after a transfer ran.
    @ExplicitNull package var metrics: TaskMetrics?
    /// The authentication challenge the task waits on for an answer.
    @ExplicitNull package var challenge: AuthenticationChallenge?
    package var createdAt: Date
    @ExplicitNull package var startedAt: Date?
    @ExplicitNull package var completedAt: Date?

    /// `live` holds the counters of a transfer under way, fresher than the last checkpoint in the database;
    /// `heldBack` says what keeps the task waiting once it is due (`hostLimit`, `discretionary`), if anything.
    package init(_ task: TransferTask, live: (received: Int64, expected: Int64)?, heldBack: TransferTask.WaitingReason?, now: Date) {
        let headerNames = task.originalRequest.headers.keys.sorted()
        let (download, upload) = (task.transfer.download, task.transfer.upload)
        let (received, expected) = (download != nil ? live : nil) ?? (task.countOfBytesReceived, task.countOfBytesExpected)
        let (sent, expectedToSend) =
            (upload != nil ? live : nil) ?? upload.map { ($0.countOfBytesSent, $0.countOfBytesExpectedToSend) } ?? (0, -1)
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
        let (done, total) = upload != nil ? (sent, expectedToSend) : (received, expected)
        let finished =
            switch task.transfer {
            case .download(let download): download.file != nil
            case .upload: task.state == .completed && task.error == nil
            }
        let fraction: Double =
            if finished {
                1
            } else if total > 0 {
                min(1, Double(done) / Double(total))
            } else {
                0
            }
        progress = Progress(fractionCompleted: fraction)
        error = task.error
        file = download?.file?.asShownToClients
        checksum = download?.checksum
        earliestBeginDate = task.earliestBeginDate
        // Queued: waiting to be claimed; a leased task's transfer is under way here or on another instance.
        let queued = task.state == .running && task.lease == nil && live == nil
        let waiting = queued && (task.nextAttemptAt.map { $0 > now } ?? false)
        let waitingReason: TransferTask.WaitingReason? =
            if waiting { task.waitingReason ?? .notBefore } else if queued { heldBack } else { nil }
        self.waitingReason = waitingReason
        nextAttemptAt = waiting ? task.nextAttemptAt : nil
        attempts = task.attempts
        resumable = download?.resumeValidator != nil
        notResumableReason = resumable ? nil : download?.notResumableReason ?? .noResponseYet
        connections = download?.connections ?? 1
        mirrors = (task.originalRequest.mirrors ?? []).map(Redaction.url)
        maxBytesPerSecond = task.maxBytesPerSecond
        redirectPolicy = download?.redirectPolicy
        destination = download?.destination.object.flatMap { $0.isContentStore ? nil : $0 }
        from = upload?.from
        multipart = upload?.multipart
        responseBody = upload?.reply?.asShownToClients
        backgroundTask = task.backgroundTask
        fetch = task.fetchId.map { FetchRunOf(id: $0, result: task.fetchResult) }
        metrics = task.state == .completed ? task.metrics : nil
        // Only while the task waits for its answer: not once it completed (cancelled, timed out) or was suspended.
        challenge = waitingReason == .authenticationChallenge ? task.challenge : nil
        createdAt = task.createdAt
        startedAt = task.startedAt
        completedAt = task.completedAt
    }
}
