import Foundation

/// One transfer of a session, after NSURLSessionTask: what to fetch, where it stands, and what came of it.
package struct TransferTask: Sendable, Equatable, Persisted {
    /// What the task does: its transfer's case.
    package typealias Kind = Transfer.Kind

    /// Internal row id, unique across sessions; names the task's files on disk.
    package var id: Int64?
    package var sessionId: Int64
    /// The client-visible identifier, unique within the session.
    package var taskIdentifier: Int64
    /// What it transfers: a download's or an upload's own data.
    package var transfer: Transfer
    package var state: TaskState
    package var taskDescription: String?
    package var priority: Double
    package var originalRequest: TransferRequest
    /// `host:port` of the URL: the per-host connection limit counts by it.
    package var origin: String
    /// The URL after redirects, once the task has reached it, its password masked: shown, never requested.
    package var currentUrl: String?
    package var response: TransferResponse?
    package var countOfBytesReceived: Int64
    /// -1 while unknown.
    package var countOfBytesExpected: Int64
    package var error: TransferError?
    /// The client's `earliestBeginDate`: the task does not start before it.
    package var earliestBeginDate: Date?
    /// The scheduler does not start the task before this: its earliest begin date, or the end of a retry backoff.
    package var nextAttemptAt: Date?
    /// Every attempt so far, oldest first.
    package var attempts: [TransferAttempt]
    /// Why a running task waits for `nextAttemptAt` (`retryBackoff`, `waitingForConnectivity`, `insufficientStorage`, `storageQuota`); nil when it
    /// waits for its earliest begin date.
    package var waitingReason: WaitingReason?
    /// A pending cancel asked for resume data: the completion keeps the partial file and issues a token.
    package var produceResumeData = false
    /// The task's own bandwidth limit; nil for none.
    package var maxBytesPerSecond: Int64?
    /// What its attempts' requests cost; nil until one ended.
    package var metrics: TaskMetrics?
    /// The authentication challenge it waits on for an answer.
    package var challenge: AuthenticationChallenge?
    /// The credentials given for its protection spaces (an origin's, a proxy's), sealed.
    package var credentials: [SealedCredential] = []
    /// The background task (its public id) the transfer belongs to.
    package var backgroundTask: String?
    /// The error a pending cancellation completes the task with, when not the plain `cancelled`.
    package var cancellation: TransferError?
    /// The fetch schedule (its public id) the task is a run of.
    package var fetchId: String?
    /// What the run gave, once its schedule has judged it.
    package var fetchResult: FetchResult?
    /// The trace its attempts continue, after a restart or on another instance: the W3C `traceparent` of the span
    /// that created it; nil when it was created with tracing off.
    package var traceparent: String?
    package var createdAt: Date
    package var startedAt: Date?
    package var completedAt: Date?
    /// The instance running its transfer; only the scheduler and the lease keeper change it.
    package var lease: TaskLease?

    package var kind: Kind { transfer.kind }

    /// Whether a transfer of the task is under way at `now`, on whichever instance holds its lease.
    package func isTransferring(at now: Date) -> Bool {
        lease?.isLive(at: now) ?? false
    }
}

extension TransferTask {
    /// A task with its identity, request and state, every other field at its initial value; a store reads the rest
    /// of a stored task into it.
    package init(
        sessionId: Int64,
        taskIdentifier: Int64,
        transfer: Transfer,
        state: TaskState,
        priority: Double,
        originalRequest: TransferRequest,
        origin: String,
        createdAt: Date
    ) {
        self.sessionId = sessionId
        self.taskIdentifier = taskIdentifier
        self.transfer = transfer
        self.state = state
        self.priority = priority
        self.originalRequest = originalRequest
        self.origin = origin
        self.createdAt = createdAt
        countOfBytesReceived = 0
        countOfBytesExpected = -1
        attempts = []
    }

    /// A new task of a session, as a client asked for it: suspended, or queued when it starts at once.
    package init(_ newTask: NewTask, sessionID: Int64, taskIdentifier: Int64, createdAt: Date) {
        self.init(
            sessionId: sessionID,
            taskIdentifier: taskIdentifier,
            transfer: newTask.transfer,
            state: newTask.start ? .running : .suspended,
            priority: newTask.priority,
            originalRequest: newTask.request,
            origin: newTask.origin,
            createdAt: createdAt
        )
        taskDescription = newTask.taskDescription
        earliestBeginDate = newTask.earliestBeginDate
        nextAttemptAt = newTask.earliestBeginDate
        maxBytesPerSecond = newTask.maxBytesPerSecond
        fetchId = newTask.fetchId
        traceparent = newTask.traceparent
    }

    /// Why a `running` task is not transferring yet.
    package enum WaitingReason: String, Codable, Sendable, CaseIterable {
        /// Its `earliestBeginDate` has not come.
        case notBefore
        /// Its last attempt failed transiently; the next one is due at `nextAttemptAt`.
        case retryBackoff
        /// Its origin could not be reached; it is tried again at `nextAttemptAt`.
        case waitingForConnectivity
        /// The session's `maximumConnectionsPerHost` transfers to its host are under way; it runs when one ends.
        case hostLimit
        /// The data directory reached its free-space floor (or its disk is full); it is tried again at `nextAttemptAt`,
        /// or as soon as space is freed.
        case insufficientStorage
        /// Its tenant keeps as many bytes as its quota allows; it is tried again at `nextAttemptAt`.
        case storageQuota
        /// Its session is discretionary: it runs inside the discretionary window, or once nothing else waits.
        case discretionary
        /// Its origin asked for credentials: it waits for the challenge's answer until `nextAttemptAt`.
        case authenticationChallenge
    }

    /// How a canceling task completes, as its machine carries it (`cancellation` and `produceResumeData` persist it).
    package var pendingCancellation: TaskStateMachine.Cancellation {
        get { TaskStateMachine.Cancellation(error: cancellation ?? .cancelled, produceResumeData: produceResumeData) }
        set { (cancellation, produceResumeData) = (newValue.error == .cancelled ? nil : newValue.error, newValue.produceResumeData) }
    }

    /// `host:port` of a URL, its host canonical, which the per-host connection limit counts by: one host spelled
    /// two ways is one host.
    package static func origin(of destination: Destination) -> String {
        "\(destination.host):\(destination.port)"
    }
}
