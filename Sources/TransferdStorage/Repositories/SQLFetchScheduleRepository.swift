import Foundation
import TransferdDomain

/// Fetch schedules, and the run tasks that keep their versions.
struct SQLFetchScheduleRepository: FetchScheduleRepository {
    let db: any SQLConnection
    let vault: CredentialVault

    func insert(_ schedule: FetchSchedule) async throws -> FetchSchedule {
        var schedule = schedule
        schedule.id = try await RowStatements.insert(into: FetchSchedule.table, try schedule.storedColumns(vault: vault), db)
        return schedule
    }

    func update(_ schedule: FetchSchedule) async throws {
        try await RowStatements.update(FetchSchedule.table, id: schedule.rowID, try schedule.storedColumns(vault: vault), db)
    }

    func delete(id: Int64) async throws {
        try await db.execute("DELETE FROM fetch_schedules WHERE id = ?", [id])
    }

    func find(publicID: String, sessionID: Int64) async throws -> FetchSchedule? {
        try await db.fetchOne(
            "SELECT * FROM fetch_schedules WHERE public_id = ? AND session_id = ?\(db.rowLock)",
            [publicID, sessionID],
            { try FetchSchedule(row: $0, vault: vault) }
        )
    }

    func list(sessionID: Int64) async throws -> [FetchSchedule] {
        try await db.fetchAll(
            "SELECT * FROM fetch_schedules WHERE session_id = ? ORDER BY id",
            [sessionID],
            { try FetchSchedule(row: $0, vault: vault) }
        )
    }

    func count(sessionID: Int64) async throws -> Int {
        try await db.value("SELECT count(*) FROM fetch_schedules WHERE session_id = ?", [sessionID]) ?? 0
    }

    func countByTenant(tenantID: Int64?) async throws -> [Int64: Int] {
        let rows = try await db.fetchAll(
            """
            SELECT s.tenant_id, count(*) FROM fetch_schedules AS f JOIN sessions AS s ON s.id = f.session_id
            WHERE s.state <> \(Session.State.invalidated.sqlConstant)\(tenantID == nil ? "" : " AND s.tenant_id = ?")
            GROUP BY s.tenant_id
            """,
            tenantID.map { [$0] } ?? []
        ) { row in (row[0] as Int64, row[1] as Int) }
        return Dictionary(rows) { first, _ in first }
    }

    func due(at now: Date, limit: Int) async throws -> [(publicID: String, sessionID: Int64)] {
        try await db.fetchAll(
            """
            SELECT f.public_id, f.session_id FROM fetch_schedules AS f
            JOIN sessions AS s ON s.id = f.session_id AND s.state = \(Session.State.active.sqlConstant)
            WHERE f.paused = 0 AND f.running_task IS NULL AND f.next_run_at <= ?
            ORDER BY f.next_run_at LIMIT ?
            """,
            [StoredDate.text(now), limit],
            { ($0[0] as String, $0[1] as Int64) }
        )
    }

    func nextRunAt() async throws -> Date? {
        // The schedules of sessions no longer active wait for nothing.
        try await db.fetchOne(
            """
            SELECT f.next_run_at FROM fetch_schedules AS f
            JOIN sessions AS s ON s.id = f.session_id AND s.state = \(Session.State.active.sqlConstant)
            WHERE f.paused = 0 AND f.running_task IS NULL
            ORDER BY f.next_run_at LIMIT 1
            """,
            [],
            { $0[0] as Date }
        )
    }

    func endedRuns(limit: Int) async throws -> [(publicID: String, sessionID: Int64)] {
        // From the completed runs not yet judged (`tasks_unjudged_runs`, whose condition the literals repeat), not
        // from the schedules under way: with thousands of runs queued, each look read every one of them.
        try await db.fetchAll(
            """
            SELECT f.public_id, f.session_id FROM tasks AS t
            JOIN fetch_schedules AS f ON f.public_id = t.fetch_id AND f.session_id = t.session_id AND f.running_task = t.task_identifier
            WHERE t.fetch_id IS NOT NULL AND t.fetch_result IS NULL AND t.state = \(TaskState.completed.sqlConstant)
            LIMIT ?
            """,
            [limit],
            { ($0[0] as String, $0[1] as Int64) }
        )
    }

    func versions(fetchID: String, sessionID: Int64) async throws -> [TransferTask] {
        try await db.fetchAll(
            """
            SELECT * FROM tasks WHERE fetch_id = ? AND session_id = ? AND fetch_result = ? AND file IS NOT NULL
            ORDER BY task_identifier DESC
            """,
            [fetchID, sessionID, FetchResult.newData.rawValue],
            { try TransferTask(row: $0, vault: vault) }
        )
    }
}
