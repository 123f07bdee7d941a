import Foundation

/// The queue of transfer tasks and the leases of the instances that run them.
package protocol TaskQueueRepository {
    /// The running tasks no instance transfers, by their stored waiting reason (`queued` without one).
    func countWaiting() async throws -> [String: Int]
    /// The session's state and its busy and unfinished tasks; nil when there is no such session.
    func workload(sessionID: Int64) async throws -> SessionWorkload?
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
