import Foundation
import GRDB
import TransferdDomain

/// The task queue's own paths on PostgreSQL, where a statement is a round trip and claims of several instances meet:
/// a claim's first read brings the first queue's page with the overview and takes the claim's turn, rows a claim reads
/// are locked and those another claim holds are passed over, and a release locks the sessions' rows after the tasks'.
struct PostgresQueue: QueuePaths {
    var underwayCounts: String { Self.underwayWalk }

    /// The transfers under way per queue, as a JSON array of `[session, origin, count]`: the queues
    /// holding a leased task, each found from the one before by a seek of `tasks_underway`, then each queue's live
    /// leases counted in it. Grouped over the table instead, the count was a scan of every task whenever the planner
    /// had no statistics yet (a new database: 0.9 ms a claim against 0.1 ms), for it took most tasks to be leased.
    private static let underwayWalk = """
        SELECT CAST(COALESCE(json_agg(json_build_array(queues.session_id, queues.origin, counted.n)), '[]') AS text) FROM (
            WITH RECURSIVE queues (session_id, origin) AS (
                (SELECT session_id, origin FROM tasks WHERE lease_owner IS NOT NULL ORDER BY session_id, origin LIMIT 1)
                UNION ALL
                SELECT next.session_id, next.origin FROM queues CROSS JOIN LATERAL (
                    SELECT session_id, origin FROM tasks
                    WHERE lease_owner IS NOT NULL AND (session_id, origin) > (queues.session_id, queues.origin)
                    ORDER BY session_id, origin LIMIT 1
                ) AS next
            )
            SELECT * FROM queues
        ) AS queues CROSS JOIN LATERAL (
            SELECT COUNT(*) AS n FROM tasks
            WHERE lease_owner IS NOT NULL AND session_id = queues.session_id AND origin = queues.origin AND lease_expires_at > ?
              AND id NOT IN (SELECT CAST(value AS bigint) FROM jsonb_array_elements_text(CAST(? AS jsonb)))
        ) AS counted
        WHERE counted.n > 0
        """

    var revisionColumn: String { "CAST(t.xmin AS text) AS revision" }

    func skipLocked(of table: String?) -> String { " FOR UPDATE\(table.map { " OF " + $0 } ?? "") SKIP LOCKED" }

    func claimable(
        _ queue: SQLTaskQueueRepository,
        dueAfter now: Date,
        leasesAt leaseNow: Date,
        owner: String,
        ending: [Int64],
        depth: Int
    ) async throws -> (QueueOverview, [QueuedTask]) {
        // The first queue's page comes with the overview: the statement a claim most often needs after it. A claim's
        // first read takes its turn, and is made again if a claim leased between its snapshot and the turn.
        let (db, vault) = (queue.db, queue.vault)
        let turn = db.claimTurn.flatMap { $0.isWaiting ? $0 : nil }
        let (sql, arguments) = queue.overviewStatement(
            dueAfter: now,
            leasesAt: leaseNow,
            owner: owner,
            ending: ending,
            takingTurn: turn != nil
        )
        var overview: QueueOverview?
        var leasedMeanwhile = false
        var page = SQLTaskQueueRepository.QueuePage()
        try await db.forEachRow(
            """
            SELECT o.*, NULL AS head_columns, h.* FROM (\(sql)) AS o LEFT JOIN LATERAL (
                SELECT \(queue.pageColumns(after: "o.first_session_id", "o.first_origin"))
                \(queue.pageSource(of: "o.first_session_id", "o.first_origin"))
            ) AS h ON o.any_claimable
            """,
            arguments + [TaskState.running, TaskState.running, TaskState.running, StoredDate.text(now), depth]
        ) { row in
            let parts = row.parts(Self.claimOverviewLayout)
            if overview == nil {
                overview = try SQLTaskQueueRepository.overview(from: parts[0])
                if turn != nil { leasedMeanwhile = (parts[0]["leases_at_turn"] as Int64) != parts[0]["leases_seen"] }
            }
            guard (parts[1][TaskColumn.id] as Int64?) != nil else { return }
            try page.add(parts[1], vault: vault)
        }
        turn?.taken()
        if leasedMeanwhile {
            return try await claimable(queue, dueAfter: now, leasesAt: leaseNow, owner: owner, ending: ending, depth: depth)
        }
        guard let overview, overview.anyClaimable else { return (overview ?? QueueOverview(), []) }
        return (overview, try await queue.queueHeads(from: overview, dueAt: now, depth: depth, firstPage: page))
    }

    /// The overview's part and its first page's, after `head_columns`. Whether the overview takes a turn changes its
    /// columns; the layout cuts a result of other names again.
    private static let claimOverviewLayout = JoinLayout(after: ["head_columns"])

    func releaseLeases(
        _ queue: SQLTaskQueueRepository,
        ids: [Int64],
        owner: String
    ) async throws -> (tasks: [TransferTask], workloads: [Int64: SessionWorkload]) {
        // The sessions' rows are locked after the tasks', as every write of a task takes them.
        var (released, workloads) = ([TransferTask](), [Int64: SessionWorkload]())
        try await queue.db.forEachRow(
            """
            WITH released AS (\(SQLTaskQueueRepository.release(ids.count)))
            SELECT released.*, w.workload_session, w.workload_state, w.workload_cancels, w.workload_busy, w.workload_unfinished
            FROM released JOIN (
                SELECT id AS workload_session, state AS workload_state, cancel_on_invalidate AS workload_cancels,
                       tasks_running + tasks_canceling AS workload_busy,
                       tasks_suspended + tasks_running + tasks_canceling AS workload_unfinished
                FROM sessions WHERE id IN (SELECT session_id FROM released) ORDER BY id FOR NO KEY UPDATE
            ) AS w ON w.workload_session = released.session_id
            """,
            ids + [owner]
        ) { row in
            released.append(try TransferTask(row: row, vault: queue.vault))
            workloads[row["workload_session"]] = SessionWorkload(
                state: try RowCoding.enumeration(row, "workload_state"),
                cancelsTasks: row["workload_cancels"],
                busy: row["workload_busy"],
                unfinished: row["workload_unfinished"]
            )
        }
        return (released, workloads)
    }
}
