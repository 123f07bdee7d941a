import Foundation

/// Transfer tasks: their rows, their endings, and the content they keep. Their queue and leases are
/// ``TaskQueueRepository``; the progress of their transfers, ``TaskProgressRepository``.
package protocol TaskRepository {
    func find(id: Int64) async throws -> TransferTask?
    func find(sessionID: Int64, taskIdentifier: Int64) async throws -> TransferTask?
    /// Inserts a new task and returns it as stored (with its row id, dates at the store's precision).
    func insert(_ task: TransferTask) async throws -> TransferTask
    /// Inserts new tasks together (one statement on PostgreSQL) and returns them as stored, in order.
    func insert(_ tasks: [TransferTask]) async throws -> [TransferTask]
    /// Writes `creation` in one statement (``Store/alone(_:)``), the tasks with their events and the events'
    /// deliveries; nil when it wrote nothing: the session is not active, the tasks would pass its limit or a quota of
    /// its tenant's, or the store writes such a creation in steps (SQLite; a large batch on PostgreSQL), and the
    /// caller creates them in a transaction.
    func create(_ creation: TaskCreation) async throws -> TaskCreation.Written?
    /// The tasks of `ids` leased to `owner`, each with its row's revision and its session, in one statement (what
    /// ``end(_:)`` writes from, when the lease's own record of a task no longer holds); none on a store that keeps no
    /// revisions of rows (SQLite, whose writes take turns of its one writer).
    func endingBases(ids: [Int64], owner: String) async throws -> [TaskEnding.Basis]
    /// Writes `ending` in one statement (``Store/alone(_:)``): the tasks' rows and the session's events with their
    /// deliveries; returns the events written, or nil when it wrote nothing, because what `ending` was worked out
    /// from no longer holds (and the caller ends the transfers in a transaction).
    func end(_ ending: TaskEnding) async throws -> [Event]?
    func update(_ task: TransferTask) async throws
    /// Writes tasks together (one statement on PostgreSQL); each must be there.
    func update(_ tasks: [TransferTask]) async throws
    /// Writes tasks together, like `update(_:)`, with the transaction's next statement (on PostgreSQL; at once on
    /// SQLite, where a statement is a call): each must be there.
    func holdUpdates(_ tasks: [TransferTask]) async throws
    /// The session's tasks after task identifier `cursor`, in identifier order, optionally in one state.
    func list(sessionID: Int64, after cursor: Int64, state: TaskState?, limit: Int) async throws -> [TransferTask]
    func inState(_ state: TaskState) async throws -> [TransferTask]
    /// The session's tasks that have not completed.
    func unfinished(sessionID: Int64) async throws -> [TransferTask]
    /// The transfers of a background task, in task identifier order.
    func transfers(ofBackgroundTask publicID: String) async throws -> [TransferTask]
    /// Task identifiers of unfinished upload tasks that will send this staged file, or this download's content.
    func unfinishedUploads(sending source: UploadSourceReference) async throws -> [Int64]

    /// Keeps an upload's reply, which counts in place of the bytes reserved for it.
    func recordReply(id: Int64, reply: StoredReply) async throws
    /// Forgets the finished content of a task (its file is removed by the caller).
    func forgetContent(id: Int64) async throws
    /// Releases the partial files kept for the resume data of the session's completed tasks; returns their row ids.
    func releaseResumeData(sessionID: Int64) async throws -> [Int64]
    /// Completed tasks whose content or reply body outlived their session's retention period at `now`, and that no
    /// unfinished upload will send.
    func expiredContent(at now: Date) async throws -> [TransferTask]
    /// Completed downloads into buckets that still name a multipart upload (they ended without their object), of
    /// task ids after `taskID`, in their order, at most `limit`.
    func abandonedObjectUploads(after taskID: Int64, limit: Int) async throws -> [AbandonedObjectUpload]
    /// Forgets the task's multipart upload, aborted.
    func forgetObjectUpload(id: Int64) async throws
}

/// What an upload task sends, by row id: a staged file or a finished download.
package enum UploadSourceReference: Sendable, Equatable {
    case stagedFile(Int64)
    case task(Int64)
}
