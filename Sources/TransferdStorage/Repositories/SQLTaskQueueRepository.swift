import Foundation
import GRDB
import TransferdDomain

/// The queue of transfer tasks and its leases. A claim's reads are in `SQLTaskQueueRepository+Claims.swift`; what each
/// database does its own way is behind ``QueuePaths``.
struct SQLTaskQueueRepository: TaskQueueRepository, TaskRows {
    let db: any SQLConnection
    let vault: CredentialVault

    // The counts read the per-session counters that the tasks' triggers keep (`0010_queue_and_counts.sql`).

    func workload(sessionID: Int64) async throws -> SessionWorkload? {
        try await db.fetchOne(
            """
            SELECT state, cancel_on_invalidate, tasks_running + tasks_canceling, tasks_suspended + tasks_running + tasks_canceling
            FROM sessions WHERE id = ?
            """,
            [sessionID]
        ) { row in
            SessionWorkload(state: try RowCoding.enumeration(row, "state"), cancelsTasks: row[1], busy: row[2], unfinished: row[3])
        }
    }

    func countWaiting() async throws -> [String: Int] {
        var counts: [String: Int] = [:]
        try await db.forEachRow(
            """
            SELECT COALESCE(waiting_reason, 'queued') AS reason, COUNT(*) FROM tasks
            WHERE state = ? AND lease_owner IS NULL GROUP BY reason
            """,
            [TaskState.running]
        ) { row in counts[row[0]] = row[1] }
        return counts
    }

    /// Each part an index seek but the transfers under way (the leased tasks, few, walked by queue on PostgreSQL:
    /// `underwayWalk`), which travel as one JSON array;
    /// whether a lease expired is the earliest lease's expiry (an `EXISTS` of the expired ones was planned as a scan
    /// of the table while its statistics counted many leases, and found none at its end).
    func overview(dueAfter now: Date, leasesAt leaseNow: Date, owner: String, ending: [Int64]) async throws -> QueueOverview {
        let (sql, arguments) = overviewStatement(dueAfter: now, leasesAt: leaseNow, owner: owner, ending: ending)
        return try await db.fetchOne(sql, arguments, Self.overview(from:)) ?? QueueOverview()
    }

    /// The overview's statement, its columns named, and its arguments.
    func overviewStatement(
        dueAfter now: Date,
        leasesAt leaseNow: Date,
        owner: String,
        ending: [Int64],
        takingTurn: Bool = false
    ) -> (String, SQLArguments) {
        // The ending tasks travel as one JSON array too: one statement text however many there are.
        let underway = db.queue.underwayCounts
        let first = "FROM tasks WHERE state = ? ORDER BY session_id, origin LIMIT 1"
        return (
            """
            SELECT (SELECT MIN(next_attempt_at) FROM tasks WHERE state = ? AND next_attempt_at > ?) AS next_attempt,
                   (SELECT MIN(lease_expires_at) FROM tasks WHERE lease_owner IS NOT NULL AND lease_owner <> ?) AS next_foreign_expiry,
                   COALESCE((SELECT MIN(lease_expires_at) FROM tasks WHERE lease_owner IS NOT NULL) <= ?, FALSE) AS leases_expired,
                   (\(underway)) AS underway,
                   (SELECT session_id \(first)) AS first_session_id, (SELECT origin \(first)) AS first_origin,
                   EXISTS (SELECT 1 FROM background_tasks WHERE state = ?) AS background_active,
                   \(Self.anyClaimable) AS any_claimable
                   \(takingTurn ? ", " + ClaimTurn.taking : "")
            """,
            [TaskState.running, StoredDate.text(now), owner, StoredDate.text(leaseNow), StoredDate.text(leaseNow)]
                + ["[" + ending.map(String.init).joined(separator: ",") + "]", TaskState.running, TaskState.running]
                + [BackgroundTask.State.active, StoredDate.text(now)]
        )
    }

    /// Whether any queued task is due at the time `?` and leased to no one: two seeks of the partial index
    /// `tasks_claimable` (the state is written out, so that the planner matches it).
    static let anyClaimable = """
        (EXISTS (SELECT 1 FROM tasks WHERE state = '\(TaskState.running.rawValue)' AND lease_owner IS NULL AND next_attempt_at IS NULL)
         OR EXISTS (SELECT 1 FROM tasks WHERE state = '\(TaskState.running.rawValue)' AND lease_owner IS NULL AND next_attempt_at <= ?))
        """

    /// The overview a row of its statement holds.
    static func overview(from row: StoredRow) throws -> QueueOverview {
        let counts = try JSONDecoder().decode([UnderwayCount].self, from: Data((row[3] as String? ?? "[]").utf8))
        let (sessionID, origin) = (row[4] as Int64?, row[5] as String?)
        return QueueOverview(
            nextAttempt: row[0],
            nextForeignLeaseExpiry: row[1],
            leasesExpired: row[2],
            underway: Dictionary(counts.map { ($0.queue, $0.count) }, uniquingKeysWith: +),
            firstQueue: sessionID.flatMap { sessionID in origin.map { HostQueue(sessionID: sessionID, origin: $0) } },
            anyBackgroundTaskActive: row[6],
            anyClaimable: row[7]
        )
    }

    func anyWaiting(for reason: TransferTask.WaitingReason, at now: Date) async throws -> Bool {
        try await db.fetchOne(
            "SELECT 1 FROM tasks WHERE \(Self.waiting) LIMIT 1",
            [TaskState.running, StoredDate.text(now), reason.rawValue]
        ) { _ in true } ?? false
    }

    func wake(waitingFor reason: TransferTask.WaitingReason, at now: Date) async throws -> Int {
        let now = StoredDate.text(now)
        let arguments: SQLArguments = [now, TaskState.running, now, reason.rawValue]
        return try await db.execute("UPDATE tasks SET next_attempt_at = ? WHERE \(Self.waiting)", arguments)
    }

    /// The queued tasks that wait, past a time, for a reason.
    private static let waiting = "state = ? AND next_attempt_at > ? AND waiting_reason = ?"

    @discardableResult
    func lease(_ tasks: [RowRevision], _ lease: TaskLease, startedAt: Date) async throws -> [RowRevision] {
        guard !tasks.isEmpty else { return [] }
        let (expiry, started) = (StoredDate.text(lease.expiresAt), StoredDate.text(startedAt))
        guard let turn = db.claimTurn else {
            try await db.execute(
                """
                UPDATE tasks SET lease_owner = ?, lease_expires_at = ?, started_at = COALESCE(started_at, ?)
                WHERE id IN (\(Placeholders.list(tasks.count)))
                """,
                [lease.owner, expiry, started] + tasks.map(\.id)
            )
            return tasks.map { RowRevision(id: $0.id, revision: nil) }
        }
        if turn.isWaiting {
            try await db.forEachRow(ClaimTurn.take, []) { _ in }
            turn.taken()
        }
        var leased: [RowRevision] = []
        let (ids, revisions) = ("{" + tasks.map { String($0.id) }.joined(separator: ",") + "}", ClaimTurn.array(tasks.map(\.revision)))
        try await db.forEachRow(ClaimTurn.lease, [ids, revisions, lease.owner, expiry, started]) { row in
            leased = (row[0] as String).split(separator: ",").compactMap { pair in
                let parts = pair.split(separator: ":")
                return parts.count == 2 ? Int64(parts[0]).map { RowRevision(id: $0, revision: String(parts[1])) } : nil
            }
        }
        turn.given()
        return leased
    }

    func releaseLeases(ids: [Int64], owner: String) async throws -> (tasks: [TransferTask], workloads: [Int64: SessionWorkload]) {
        guard !ids.isEmpty else { return ([], [:]) }
        return try await db.queue.releaseLeases(self, ids: ids, owner: owner)
    }

    /// The statement that gives back `count` tasks' leases held by an owner, returning the tasks: the ids, then the
    /// owner.
    static func release(_ count: Int) -> String {
        """
        UPDATE tasks SET lease_owner = NULL, lease_expires_at = NULL WHERE id IN (\(Placeholders.list(count))) AND lease_owner = ?
        RETURNING *
        """
    }

    func renewLeases(ids: [Int64], owner: String, until expiresAt: Date) async throws -> [Int64: LeaseRenewal<TaskState>] {
        try await db.leases.renewTasks(ids: ids, owner: owner, until: expiresAt)
    }

    func releaseLease(id: Int64) async throws {
        try await db.execute("UPDATE tasks SET lease_owner = NULL, lease_expires_at = NULL WHERE id = ?", [id])
    }

    func expireLeases(ownedBy owner: String?) async throws {
        let expired = StoredDate.text(Date(timeIntervalSince1970: 0))
        if let owner {
            try await db.execute("UPDATE tasks SET lease_expires_at = ? WHERE lease_owner = ?", [expired, owner])
        } else {
            try await db.execute("UPDATE tasks SET lease_expires_at = ? WHERE lease_owner IS NOT NULL", [expired])
        }
    }

    func expiredLeases(at now: Date) async throws -> [TransferTask] {
        try await tasks("SELECT * FROM tasks WHERE lease_owner IS NOT NULL AND lease_expires_at <= ?\(db.rowLock)", [StoredDate.text(now)])
    }
}

/// One queue's count of transfers under way, as the overview's JSON array holds it: `[session_id, origin, count]`.
private struct UnderwayCount: Decodable {
    let queue: HostQueue
    let count: Int

    init(from decoder: any Decoder) throws {
        var row = try decoder.unkeyedContainer()
        queue = HostQueue(sessionID: try row.decode(Int64.self), origin: try row.decode(String.self))
        count = try row.decode(Int.self)
    }
}
