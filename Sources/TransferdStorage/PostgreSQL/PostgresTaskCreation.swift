import Foundation
import GRDB
import TransferdDomain

/// A creation of tasks in one PostgreSQL statement (``TaskRepository/create(_:)``), which a POST of one task was
/// five round trips of before (the session's row, `BEGIN`, the identifiers with the tenant's standing, the tasks
/// with their events, `COMMIT`):
/// - the session's row takes the tasks' identifiers and the events' sequences, as long as the creation's
///   ``CreationAdmission`` admits them: it carries out the decider's comparisons (the session active, its most, the
///   tenant's quotas of queued tasks and stored bytes) against the session's row and the tenant's standing as the
///   statement reads them, and a refusal writes nothing, for the transaction to decide and explain;
/// - the tasks, their events and the events' deliveries to the session's subscriber are inserted;
/// - the statement takes its commit position (``CommitNumbering``) and notifies what it announces (work when a task
///   starts, the session's events, and the outbox only when it queued a delivery).
///
/// It takes the session's row, then the log's head, as a transaction of one session does. A creation of more than
/// `mostTasks` tasks goes in steps: a batch of 1,000 took 126–156 ms in one statement, against 99–112 in steps.
struct PostgresTaskCreation {
    static let mostTasks = 16

    let db: any SQLConnection
    let vault: CredentialVault
    let numbering: CommitNumbering?
    let commitActions: CommitActions

    func create(_ creation: TaskCreation) async throws -> TaskCreation.Written? {
        guard let numbering, creation.tasks.count <= Self.mostTasks else { return nil }
        let (tasks, session) = (creation.tasks.count, creation.sessionID)
        // The tasks' rows number them from 1; the statement adds the identifiers taken before them.
        let rows = try creation.tasks.enumerated().map { offset, task in
            var task = task
            task.taskIdentifier = Int64(offset + 1)
            return try task.insertedColumns(vault)
        }
        let appending = SessionAppend.Appending(
            sessionID: session,
            events: creation.events.enumerated().flatMap { offset, events in events.map { (Int64(offset + 1), $0) } },
            createdAt: creation.createdAt,
            traceparent: creation.traceparent,
            // Work when a task starts.
            signals: creation.tasks.contains { $0.state == .running } ? [.work] : [],
            taskIdentifierArguments: [tasks]
        )
        let events = appending.events.count
        guard let (appendArguments, results) = try Self.append.arguments(appending, numbering, commitActions) else { return nil }
        let admission = creation.admission
        let columns = rows[0].map(\.key)
        let start = creation.start
        let startedAt = StoredDate.text(start?.startedAt ?? creation.createdAt)
        // The tasks start here only if they were asked to, and the claims' turn lets them.
        let starts: SQLArguments = [
            start == nil ? 0 : 1, StoredDate.text(creation.createdAt), session, start?.origin ?? "",
            StoredDate.text(start?.leasesAt ?? creation.createdAt), tasks, start?.maximumConnectionsPerHost ?? 0,
        ]
        let values: SQLArguments = columns.compactMap { column in
            switch column {
            case "task_identifier": tasks
            case "started_at": startedAt
            default: nil
            }
        }
        let arguments: SQLArguments =
            starts
            + [
                tasks, events, session, tasks, admission.maximumTasksPerSession, tasks, admission.defaultQuota.queuedTasks,
                admission.needsStorage ? 1 : 0, admission.defaultQuota.storedBytes, events,
            ] + values + [start?.lease.owner, start.map { StoredDate.text($0.lease.expiresAt) }, try JSONRows.text(rows)]
            + appendArguments + results
        guard
            let written = try await db.fetchOne(
                Self.statement.text(columns: columns),
                arguments,
                { row in
                    (
                        identifiers: (row["last_task_identifier"] as Int64) - Int64(tasks),
                        sequences: (row["last_sequence"] as Int64) - Int64(events),
                        taskIDs: SessionAppend.ids(row["task_ids"]),
                        eventIDs: SessionAppend.ids(row["event_ids"]),
                        queued: row["queued"] as Bool,
                        started: row["started"] as Bool ? (row["revisions"] as String? ?? "").split(separator: ",").map(String.init) : []
                    )
                }
            )
        else { return nil }
        guard written.taskIDs.count == tasks, written.eventIDs.count == events, written.started.isEmpty || written.started.count == tasks
        else {
            throw StoreError.rowNotFound("\(tasks) tasks and \(events) events of session \(session)")
        }
        let created = zip(creation.tasks, written.taskIDs).enumerated().map { offset, pair in
            var task = pair.0
            task.taskIdentifier = written.identifiers + Int64(offset + 1)
            if let start, !written.started.isEmpty {
                task.lease = start.lease
                task.startedAt = start.startedAt
            }
            return SQLTaskRepository.asStored(task, id: pair.1)
        }
        var appended = SessionAppend.events(appending, ids: written.eventIDs, firstSequence: written.sequences + 1)
        for index in appended.indices { appended[index].taskIdentifier = appended[index].taskIdentifier.map { written.identifiers + $0 } }
        // Announced as they were notified, for this instance's loops; tasks started here are no work for its claims
        // (other instances, notified of work, look once).
        Self.append.written(appending, queued: written.queued, numbering, commitActions)
        if !written.started.isEmpty { commitActions.signals.removeAll { $0 == .work } }
        return TaskCreation.Written(tasks: created, events: appended, queuedDelivery: written.queued, started: written.started)
    }

    /// The events' part: each event's task is its task's place among the new tasks.
    private static let append = SessionAppend(taskIdentifier: "taken.last_task_identifier - ? + e.task")

    /// The statement for tasks' rows with `columns`.
    private static let statement = StatementByColumns(buildStatement)

    private static func buildStatement(columns: [String]) -> String {
        let values = columns.map { column in
            switch column {
            case "task_identifier": "taken.last_task_identifier - ? + v.task_identifier"
            case "started_at": "CASE WHEN starts.here THEN CAST(? AS text) ELSE v.started_at END"
            default: "v.\(column)"
            }
        }
        return """
            WITH turn AS MATERIALIZED (
                SELECT CASE WHEN CAST(? AS integer) = 1 THEN claim_turn_now() END AS leases_at_turn,
                       (SELECT count FROM claim_leases) AS leases_seen
            ),
            starts AS MATERIALIZED (
                SELECT CASE WHEN turn.leases_at_turn = turn.leases_seen THEN
                           NOT \(SQLTaskQueueRepository.anyClaimable)
                           AND (SELECT count(*) FROM tasks
                                WHERE lease_owner IS NOT NULL AND session_id = ? AND origin = ? AND lease_expires_at > ?) + ? <= ?
                       ELSE FALSE END AS here
                FROM turn
            ),
            taken AS (
                UPDATE sessions AS s SET last_task_identifier = last_task_identifier + ?, last_sequence = last_sequence + ?
                WHERE s.id = ? AND s.state = \(Session.State.active.sqlConstant)
                  AND s.tasks_suspended + s.tasks_running + s.tasks_canceling + s.tasks_completed + ? <= ?
                  AND NOT EXISTS (
                      SELECT 1 FROM (\(SQLTenantRepository.standings) WHERE t.id = s.tenant_id) AS standing
                      WHERE standing.queued + ? > COALESCE(standing.max_queued_tasks, ?)
                         OR (? = 1 AND standing.stored >= COALESCE(standing.max_stored_bytes, ?))
                  )
                RETURNING s.id, s.last_task_identifier, s.last_sequence, CAST(? AS bigint) AS appended
            ),
            new_tasks AS (
                INSERT INTO tasks (\(columns.joined(separator: ", ")), lease_owner, lease_expires_at)
                SELECT \(values.joined(separator: ", ")), CASE WHEN starts.here THEN CAST(? AS text) END,
                       CASE WHEN starts.here THEN CAST(? AS text) END
                FROM taken CROSS JOIN starts CROSS JOIN jsonb_populate_recordset(NULL::tasks, CAST(? AS jsonb)) AS v
                RETURNING id, task_identifier, CAST(xmin AS text) AS revision
            ),
            counted AS (
                UPDATE claim_leases SET count = count + 1 WHERE (SELECT here FROM starts) AND EXISTS (SELECT 1 FROM new_tasks)
                RETURNING count
            ),
            \(append.clauses)
            SELECT taken.last_task_identifier, taken.last_sequence,
                   (SELECT string_agg(CAST(id AS text), ',' ORDER BY task_identifier) FROM new_tasks) AS task_ids,
                   (SELECT string_agg(revision, ',' ORDER BY task_identifier) FROM new_tasks) AS revisions,
                   EXISTS (SELECT 1 FROM counted) AS started,
                   \(SessionAppend.results)
            FROM taken
            """
    }
}
