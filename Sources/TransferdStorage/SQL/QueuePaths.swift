import Foundation
import TransferdDomain

/// The task queue's paths that each database takes its own way (`PostgreSQL/PostgresQueue.swift`,
/// `SQLite/SQLiteQueue.swift`): a claim's reads, a release of leases, and the SQL a claim's statements differ by.
/// ``SQLTaskQueueRepository`` shares the rest of its SQL between the two.
protocol QueuePaths: Sendable {
    /// The overview's count of the transfers under way per queue: a query of one JSON array text of
    /// `[session, origin, count]`, whose arguments are the time leases are live at and the ending tasks' ids as a JSON
    /// array (they are not counted).
    var underwayCounts: String { get }
    /// A claim's read of the revision of a task `t`, as a column `revision` (NULL where the database has none).
    var revisionColumn: String { get }
    /// The clause after a claim's query that locks the rows it reads of `table` (of every table when nil) and passes
    /// over those another claim holds; empty where the writer has the database to itself.
    func skipLocked(of table: String?) -> String
    /// ``TaskQueueRepository/claimable(dueAfter:leasesAt:owner:ending:depth:)`` of `queue`.
    func claimable(
        _ queue: SQLTaskQueueRepository,
        dueAfter now: Date,
        leasesAt leaseNow: Date,
        owner: String,
        ending: [Int64],
        depth: Int
    ) async throws -> (QueueOverview, [QueuedTask])
    /// ``TaskQueueRepository/releaseLeases(ids:owner:)`` of `queue`, for ids that are not empty.
    func releaseLeases(
        _ queue: SQLTaskQueueRepository,
        ids: [Int64],
        owner: String
    ) async throws -> (tasks: [TransferTask], workloads: [Int64: SessionWorkload])
}
