import Foundation
import TransferdDomain

/// The task queue's own paths on SQLite, whose one writer has the database to itself: a claim reads the overview and
/// then the queue heads, nothing is locked, and a release reads its sessions' workloads after it.
struct SQLiteQueue: QueuePaths {
    var underwayCounts: String {
        """
        SELECT json_group_array(json_array(session_id, origin, n)) FROM (
            SELECT session_id, origin, COUNT(*) AS n FROM tasks
            WHERE lease_owner IS NOT NULL AND lease_expires_at > ? AND id NOT IN (SELECT value FROM json_each(?))
            GROUP BY session_id, origin) AS underway
        """
    }

    var revisionColumn: String { "NULL AS revision" }

    func skipLocked(of table: String?) -> String { "" }

    func claimable(
        _ queue: SQLTaskQueueRepository,
        dueAfter now: Date,
        leasesAt leaseNow: Date,
        owner: String,
        ending: [Int64],
        depth: Int
    ) async throws -> (QueueOverview, [QueuedTask]) {
        let overview = try await queue.overview(dueAfter: now, leasesAt: leaseNow, owner: owner, ending: ending)
        return (overview, overview.anyClaimable ? try await queue.queueHeads(from: overview, dueAt: now, depth: depth, firstPage: nil) : [])
    }

    func releaseLeases(
        _ queue: SQLTaskQueueRepository,
        ids: [Int64],
        owner: String
    ) async throws -> (tasks: [TransferTask], workloads: [Int64: SessionWorkload]) {
        let released = try await queue.tasks(SQLTaskQueueRepository.release(ids.count), ids + [owner])
        var workloads: [Int64: SessionWorkload] = [:]
        for session in Set(released.map(\.sessionId)) { workloads[session] = try await queue.workload(sessionID: session) }
        return (released, workloads)
    }
}
