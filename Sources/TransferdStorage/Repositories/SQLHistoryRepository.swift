import Foundation
import GRDB
import TransferdDomain

/// The removal of history past keeping, in batches.
struct SQLHistoryRepository: HistoryRepository {
    let db: any SQLConnection
    let vault: CredentialVault

    func sessions(after id: Int64, limit: Int) async throws -> [HistorySession] {
        try await db.fetchAll(
            """
            SELECT s.id, s.tenant_id, s.retention_period, s.history_retention, s.events_trimmed_through,
                s.tasks_suspended + s.tasks_running + s.tasks_canceling AS unfinished, s.invalidated_at, s.deleted_at,
                (SELECT MIN(t.completed_at) FROM tasks t WHERE t.session_id = s.id AND t.state = 'completed') AS oldest_task,
                (SELECT e.created_at FROM events e WHERE e.session_id = s.id AND e.sequence = s.events_trimmed_through + 1)
                    AS oldest_event,
                (SELECT MIN(d.sequence) FROM deliveries d WHERE d.status = 'pending' AND d.session_id = s.id) AS first_pending,
                (SELECT MIN(b.ended_at) FROM background_tasks b WHERE b.session_id = s.id AND b.state <> 'active')
                    AS oldest_background_task
            FROM sessions s WHERE s.id > ? ORDER BY s.id LIMIT ?
            """,
            [id, limit]
        ) { row in
            HistorySession(
                id: row["id"],
                tenantID: row["tenant_id"],
                retentionPeriod: row["retention_period"],
                historyRetention: row["history_retention"],
                eventsTrimmedThrough: row["events_trimmed_through"],
                oldestFinishedTask: row["oldest_task"],
                oldestEvent: row["oldest_event"],
                firstPendingDelivery: row["first_pending"],
                oldestEndedBackgroundTask: row["oldest_background_task"],
                unfinishedTasks: row["unfinished"],
                invalidatedAt: row["invalidated_at"],
                deleted: (row["deleted_at"] as String?) != nil
            )
        }
    }

    func removeFinishedTasks(sessionID: Int64, finishedBefore: Date, limit: Int) async throws -> Int {
        // Content the service keeps (a file in the data directory or the content store, not an object of the
        // tenant's own store, which is the tenant's), resume data and a reply go first, with the retention sweep.
        // The tasks' trigger takes them off their session's counters.
        return try await db.execute(
            """
            DELETE FROM tasks WHERE id IN (
                SELECT t.id FROM tasks t
                WHERE t.session_id = ? AND t.state = 'completed' AND t.completed_at < ?
                  AND (t.file IS NULL OR (t.destination IS NOT NULL AND t.destination NOT LIKE ? ESCAPE '!'))
                  AND t.reply IS NULL AND t.partial_bytes = 0 AND t.reserved_bytes = 0
                  AND NOT EXISTS (
                      SELECT 1 FROM deliveries d
                      WHERE d.status = 'pending' AND d.session_id = t.session_id AND d.task_identifier = t.task_identifier
                  )
                  AND NOT EXISTS (SELECT 1 FROM tasks u WHERE u.source_task_id = t.id AND u.state <> 'completed')
                ORDER BY t.completed_at LIMIT ?
            )
            """,
            [sessionID, StoredDate.text(finishedBefore), SQLTaskRepository.inContentStore, limit]
        )
    }

    func completedTasks(sessionID: Int64, limit: Int) async throws -> [TransferTask] {
        try await db.fetchAll(
            "SELECT * FROM tasks WHERE session_id = ? AND state = 'completed' ORDER BY id LIMIT ?",
            [sessionID, limit]
        ) { try TransferTask(row: $0, vault: vault) }
    }

    func removeTasks(sessionID: Int64, ids: [Int64]) async throws -> Int {
        guard !ids.isEmpty else { return 0 }
        return try await db.execute(
            "DELETE FROM tasks WHERE session_id = ? AND state = 'completed' AND id IN (\(Placeholders.list(ids.count)))",
            [sessionID] + ids
        )
    }

    func oldestEvents(sessionID: Int64, after sequence: Int64, limit: Int) async throws -> [EventLogTrim.EventAge] {
        try await db.fetchAll(
            "SELECT sequence, created_at FROM events WHERE session_id = ? AND sequence > ? ORDER BY sequence LIMIT ?",
            [sessionID, sequence, limit]
        ) { row in EventLogTrim.EventAge(sequence: row[0], createdAt: row[1]) }
    }

    func firstPendingDelivery(sessionID: Int64) async throws -> Int64? {
        try await db.value("SELECT MIN(sequence) FROM deliveries WHERE status = 'pending' AND session_id = ?", [sessionID])
    }

    func trimEvents(
        sessionID: Int64,
        tenantID: Int64,
        after trimmedThrough: Int64,
        through sequence: Int64,
        deleted: Bool
    ) async throws -> HistoryRemoval {
        var removal = HistoryRemoval()
        let last = deleted ? nil : try await db.history.lastPosition(sessionID: sessionID, after: trimmedThrough, through: sequence, db)
        // The statuses named, so that the index of a session's deliveries (by status, then sequence) is searched by
        // range for each (PostgreSQL before 18 cannot skip over the status otherwise, and reads all of them).
        let statuses = Delivery.Status.allCases.filter { deleted || $0 != .pending }
        let deliveries = "session_id = ? AND status IN (\(Placeholders.list(statuses.count))) AND sequence > ? AND sequence <= ?"
        let arguments: [any DatabaseValueConvertible] = [sessionID] + statuses.map(\.rawValue) + [trimmedThrough, sequence]
        removal.attempts = try await db.execute(
            "DELETE FROM delivery_attempts WHERE delivery_id IN (SELECT id FROM deliveries WHERE \(deliveries))",
            arguments
        )
        removal.deliveries = try await db.execute("DELETE FROM deliveries WHERE \(deliveries)", arguments)
        removal.events = try await db.history.removeEvents(sessionID: sessionID, after: trimmedThrough, through: sequence, db)
        try await db.execute(
            "UPDATE sessions SET events_trimmed_through = ? WHERE id = ? AND events_trimmed_through < ?",
            [sequence, sessionID, sequence]
        )
        if let last {
            try await db.execute(
                """
                UPDATE tenants SET events_trimmed_commit = ?, events_trimmed_id = ?
                WHERE id = ? AND (events_trimmed_commit < ? OR (events_trimmed_commit = ? AND events_trimmed_id < ?))
                """,
                [last.commit, last.id, tenantID, last.commit, last.commit, last.id]
            )
        }
        return removal
    }

    func removeEndedBackgroundTasks(sessionID: Int64, endedBefore: Date, limit: Int) async throws -> Int {
        try await db.execute(
            """
            DELETE FROM background_tasks WHERE id IN (
                SELECT id FROM background_tasks WHERE session_id = ? AND state <> 'active' AND ended_at < ? ORDER BY ended_at LIMIT ?
            )
            """,
            [sessionID, StoredDate.text(endedBefore), limit]
        )
    }

    func removeSession(id: Int64) async throws -> Bool {
        let holds: Int64? = try await db.value(
            "SELECT 1 FROM sessions s WHERE s.id = ? AND (EXISTS (SELECT 1 FROM tasks WHERE session_id = s.id) "
                + "OR EXISTS (SELECT 1 FROM events WHERE session_id = s.id))",
            [id]
        )
        guard holds == nil else { return false }
        for table in ["webhooks", "fetch_schedules", "background_tasks"] {
            try await db.execute("DELETE FROM \(table) WHERE session_id = ?", [id])
        }
        return try await db.execute("DELETE FROM sessions WHERE id = ?", [id]) > 0
    }

    func reclaimSpace(pages: Int) async throws -> Int {
        try await db.history.reclaimSpace(pages: pages, db)
    }

    func databaseBytes() async throws -> Int64 {
        try await db.history.databaseBytes(db)
    }
}
