import Foundation

/// Transfer tasks: their rows, their queue, and the counts that limits and session bookkeeping need.
package protocol TaskRepository {
    func find(id: Int64) throws -> TransferTask?
    func find(sessionID: Int64, taskIdentifier: Int64) throws -> TransferTask?
    /// Inserts a new task and returns it as stored (with its row id, dates at the store's precision).
    func insert(_ task: TransferTask) throws -> TransferTask
    func update(_ task: TransferTask) throws
    /// The session's tasks after task identifier `cursor`, in identifier order, optionally in one state.
    func list(sessionID: Int64, after cursor: Int64, state: TaskState?, limit: Int) throws -> [TransferTask]
    func inState(_ state: TaskState) throws -> [TransferTask]
    /// The session's tasks that have not completed.
    func unfinished(sessionID: Int64) throws -> [TransferTask]
    func count(sessionID: Int64) throws -> Int
    /// Tasks not completed across the tenant's sessions.
    func countUnfinished(tenantID: Int64) throws -> Int
    /// The session's busy (running or canceling) and unfinished (not completed) tasks.
    func workload(sessionID: Int64) throws -> (busy: Int, unfinished: Int)
    /// The transfers of a background task, in task identifier order.
    func transfers(ofBackgroundTask publicID: String) throws -> [TransferTask]
    /// Task identifiers of unfinished upload tasks that will send this staged file, or this download's content.
    func unfinishedUploads(sending source: UploadSourceReference) throws -> [Int64]

    /// The scheduler claimed the task for an attempt: the first claim sets `startedAt`.
    func markStarted(id: Int64, at: Date) throws
    /// A checkpoint of a running download; false when the task is no longer running.
    func recordProgress(id: Int64, received: Int64, expected: Int64, partialBytes: Int64) throws -> Bool
    /// The counters of a running upload; false when the task is no longer running.
    func recordUploadProgress(id: Int64, sent: Int64, expected: Int64) throws -> Bool
    func recordReply(id: Int64, reply: StoredReply) throws
    /// Forgets the finished content of a task (its file is removed by the caller).
    func forgetContent(id: Int64) throws
    /// Releases the partial files kept for the resume data of the session's completed tasks; returns their row ids.
    func releaseResumeData(sessionID: Int64) throws -> [Int64]
    /// Completed tasks whose content or reply body outlived their session's retention period at `now`, and that no
    /// unfinished upload will send.
    func expiredContent(at now: Date) throws -> [TransferTask]

    /// The earliest `nextAttemptAt` after `now` among queued tasks.
    func nextAttemptDate(after now: Date) throws -> Date?
    /// The queue heads: for each session and origin, its first `depth` queued tasks due at `now`, ranked by
    /// active background task first, then priority, then age; transferring ones (`excluding`) are left out.
    func queueHeads(excluding transferring: [Int64], dueAt now: Date, depth: Int) throws -> [QueuedTask]
}

/// What an upload task sends, by row id: a staged file or a finished download.
package enum UploadSourceReference: Sendable, Equatable {
    case stagedFile(Int64)
    case task(Int64)
}

/// A queued task the scheduler may claim, with its session's configuration and its rank in its session's queue for
/// its origin.
package struct QueuedTask: Sendable {
    package let task: TransferTask
    package let configuration: SessionConfiguration
    /// 1 for the first of its session's queue for its origin, 2 for the next, …
    package let turn: Int
    /// Whether it belongs to an active background task, which runs ahead of the session's other tasks.
    package let boosted: Bool

    package init(task: TransferTask, configuration: SessionConfiguration, turn: Int, boosted: Bool) {
        self.task = task
        self.configuration = configuration
        self.turn = turn
        self.boosted = boosted
    }
}
