import Foundation

/// Transfer tasks: their rows, their queue, and the counts that limits and session bookkeeping need.
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
    /// The running tasks no instance transfers, by their stored waiting reason (`queued` without one).
    func countWaiting() async throws -> [String: Int]
    /// The session's state and its busy and unfinished tasks; nil when there is no such session.
    func workload(sessionID: Int64) async throws -> SessionWorkload?
    /// The transfers of a background task, in task identifier order.
    func transfers(ofBackgroundTask publicID: String) async throws -> [TransferTask]
    /// Task identifiers of unfinished upload tasks that will send this staged file, or this download's content.
    func unfinishedUploads(sending source: UploadSourceReference) async throws -> [Int64]

    /// The multipart upload a download into a bucket has just begun, recorded by the lease's `owner` before any part
    /// goes, so that whichever attempt comes next continues it (or the sweeper aborts it); false when the task is no
    /// longer the owner's.
    func recordObjectUpload(id: Int64, owner: String, objectUpload: ObjectUploadProgress) async throws -> Bool

    /// A checkpoint of a running download by the lease's `owner`, or of one being cancelled (its last checkpoint,
    /// which its resume data continues from); false when the task is neither or no longer the owner's. A download
    /// into a bucket checkpoints its multipart upload with the bytes it holds, when a part was added (nil leaves the
    /// upload recorded as it is).
    func recordProgress(
        id: Int64,
        owner: String,
        received: Int64,
        expected: Int64,
        partialBytes: Int64,
        objectUpload: ObjectUploadProgress?
    ) async throws -> Bool
    /// The responses running tasks' transfers received, by the lease's `owner`, written together without reading the
    /// tasks first; returns the identifiers of the tasks written, by row id (one no longer running or the owner's is
    /// missing).
    func recordResponses(owner: String, _ responses: [(id: Int64, received: ReceivedResponse)]) async throws -> [Int64: Int64]
    /// The offset a task's stored bytes are reserved through: what it keeps and what it has reserved after that
    /// (counted in its tenant's stored bytes; ``StorageGrant``).
    func reservation(id: Int64) async throws -> Int64
    /// Reserves a running task's stored bytes through the offset `through`, for the lease's `owner` (a reservation only
    /// grows while the lease lasts, and goes with it); false when it is no longer running or the owner's.
    func reserve(id: Int64, owner: String, through: Int64) async throws -> Bool
    /// The counters of a running upload by the lease's `owner`; false when it is no longer running or the owner's.
    func recordUploadProgress(id: Int64, owner: String, sent: Int64, expected: Int64) async throws -> Bool
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

    /// What a claim reads before the queue heads, in one statement: when the queue must be looked at again (retries
    /// and deferred starts due after `now`, leases of instances other than `owner` that expire, whether a lease had
    /// expired at `leaseNow`), the transfers under way at `leaseNow` on every instance by session and origin (the
    /// tasks `ending`, this instance's transfers that are over but whose ends are not committed, not counted), the
    /// first queue, whether any background task is active and whether any queued task is due and unleased.
    func overview(dueAfter now: Date, leasesAt leaseNow: Date, owner: String, ending: [Int64]) async throws -> QueueOverview
    /// Whether a queued task waits for `reason` past `now`: what ``wake(waitingFor:at:)`` would make due.
    func anyWaiting(for reason: TransferTask.WaitingReason, at now: Date) async throws -> Bool
    /// Makes the queued tasks waiting for `reason` due at `now`; how many there were.
    func wake(waitingFor reason: TransferTask.WaitingReason, at now: Date) async throws -> Int
    /// What a claim reads (`Store.claim`): the overview, and when a task is claimable, the queue heads: for each
    /// session and origin from the overview's first queue on, its first `depth` queued tasks due at `now` that no
    /// instance holds, ranked by active background task first, then priority, then age. On PostgreSQL, the first
    /// queue's heads come in the overview's statement.
    func claimable(
        dueAfter now: Date,
        leasesAt leaseNow: Date,
        owner: String,
        ending: [Int64],
        depth: Int
    ) async throws -> (
        QueueOverview, [QueuedTask]
    )

    /// Leases the tasks to the instance that will run their transfers, and answers those it leased, each with its
    /// row's revision once leased; a task's first lease also sets `startedAt`. A claim's last write: on PostgreSQL,
    /// where a claim has no transaction and holds no row, it leases only the tasks still queued, unleased and as the
    /// claim read them (a suspend, a cancel or a patch may have come since), commits, and lets the next claim in.
    @discardableResult
    func lease(_ tasks: [RowRevision], _ lease: TaskLease, startedAt: Date) async throws -> [RowRevision]
    /// Ends `owner`'s leases on the tasks, whose transfers ended, and returns the tasks as they are now with the
    /// workloads of their sessions, whose rows it locks in ascending order (one statement on PostgreSQL); a task
    /// `owner` no longer holds (or that is gone) is missing from the answer.
    func releaseLeases(ids: [Int64], owner: String) async throws -> (tasks: [TransferTask], workloads: [Int64: SessionWorkload])
    /// Renews the leases `owner` holds on these tasks until `expiresAt`, with the state of each task renewed; a task
    /// whose lease `owner` no longer holds is missing from the answer.
    func renewLeases(ids: [Int64], owner: String, until expiresAt: Date) async throws -> [Int64: LeaseRenewal<TaskState>]
    func releaseLease(id: Int64) async throws
    /// Makes the leases `owner` holds (every lease, when nil) expired: an instance that starts again takes back at
    /// once what it held before it stopped.
    func expireLeases(ownedBy owner: String?) async throws
    /// The tasks whose leases had expired at `now`: their owners stopped renewing them.
    func expiredLeases(at now: Date) async throws -> [TransferTask]
}

/// A session's queue for one origin: what `maximumConnectionsPerHost` counts by.
package struct HostQueue: Hashable, Sendable {
    package let sessionID: Int64
    package let origin: String

    package init(sessionID: Int64, origin: String) {
        self.sessionID = sessionID
        self.origin = origin
    }
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
    /// The tenant whose session it is: workers are shared across tenants.
    package let tenantID: Int64
    /// 1 for the first of its session's queue for its origin, 2 for the next, …
    package let turn: Int
    /// Whether it belongs to an active background task, which runs ahead of the session's other tasks.
    package let boosted: Bool
    /// The task's row as read, which its lease takes only while it is still that.
    package let revision: RowRevision

    package init(
        task: TransferTask,
        configuration: SessionConfiguration,
        tenantID: Int64,
        turn: Int,
        boosted: Bool,
        revision: String?
    ) {
        self.revision = RowRevision(id: task.rowID, revision: revision)
        self.task = task
        self.configuration = configuration
        self.tenantID = tenantID
        self.turn = turn
        self.boosted = boosted
    }
}
