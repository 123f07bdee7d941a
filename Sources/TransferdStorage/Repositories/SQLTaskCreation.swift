import Foundation
import GRDB
import Synchronization
import TransferdDomain

/// A creation of tasks in one PostgreSQL statement (``TaskRepository/create(_:)``), which a POST of one task was
/// five round trips of before (the session's row, `BEGIN`, the identifiers with the tenant's standing, the tasks
/// with their events, `COMMIT`):
/// - the session's row takes the tasks' identifiers and the events' sequences, as long as the session is active and
///   neither its limit nor its tenant's quotas of queued tasks and stored bytes would be passed (as
///   `TenantQuotas.admit` decides, against the standing read as the statement began);
/// - the tasks, their events and the events' deliveries to the session's subscriber are inserted;
/// - the statement takes its commit position (``CommitNumbering``) and notifies what it announces (work when a task
///   starts, the session's events, and the outbox only when it queued a delivery).
///
/// It takes the session's row, then the log's head, as a transaction of one session does. A creation of more than
/// `mostTasks` tasks goes in steps: a batch of 1,000 took 126–156 ms in one statement, against 99–112 in steps.
struct SQLTaskCreation {
    static let mostTasks = 16

    let db: any SQLConnection
    let vault: CredentialVault
    let numbering: CommitNumbering?
    let commitActions: CommitActions

    func create(_ creation: TaskCreation) async throws -> TaskCreation.Written? {
        guard db.dialect == .postgres, let numbering, creation.tasks.count <= Self.mostTasks else { return nil }
        let (tasks, events) = (creation.tasks.count, creation.events.joined().count)
        let session = creation.sessionID
        // The tasks' rows number them from 1; the statement adds the identifiers taken before them.
        let rows = try creation.tasks.enumerated().map { offset, task in
            var task = task
            task.taskIdentifier = Int64(offset + 1)
            return try task.insertedColumns(vault)
        }
        var eventRows: [StoredColumns] = []
        for (offset, taskEvents) in creation.events.enumerated() {
            for (type, data) in taskEvents {
                eventRows.append([
                    "ordinal": eventRows.count + 1, "type": type.rawValue, "task": offset + 1, "data": try RowCoding.json(data),
                    "message": Delivery.newMessageID(),
                ])
            }
        }
        // Work when a task starts; the session's events; and the outbox, when a delivery is queued.
        let signals: [Signal] = [.events(sessionID: session)] + (creation.tasks.contains { $0.state == .running } ? [.work] : [])
        let announced = Set(commitActions.signals + signals)
        let notification = numbering.take(announcing: announced)?.notification ?? []
        let outbox = numbering.notifications.payloads([.outbox])
        guard notification.count == 2, outbox.count == 1 else { return nil }
        let quota = creation.defaultQuota
        let createdAt = StoredDate.text(creation.createdAt)
        let arguments: SQLArguments =
            [
                tasks, events, session, tasks, creation.maximumTasksInSession, tasks, quota.queuedTasks, creation.needsStorage ? 1 : 0,
                quota.storedBytes, tasks, try JSONRows.text(rows), events, tasks, createdAt, creation.traceparent,
                try JSONRows.text(eventRows), session,
            ] + notification.map { $0 } + [numbering.notifications.channel, outbox[0]]
        guard
            let written = try await db.fetchOne(
                Self.statement(columns: rows[0].map(\.key)),
                arguments,
                { row in
                    (
                        identifiers: (row["last_task_identifier"] as Int64) - Int64(tasks),
                        sequences: (row["last_sequence"] as Int64) - Int64(events),
                        taskIDs: Self.ids(row["task_ids"]),
                        eventIDs: Self.ids(row["event_ids"]),
                        queued: row["queued"] as Bool
                    )
                }
            )
        else { return nil }
        guard written.taskIDs.count == tasks, written.eventIDs.count == events else {
            throw StoreError.rowNotFound("\(tasks) tasks and \(events) events of session \(session)")
        }
        let created = zip(creation.tasks, written.taskIDs).enumerated().map { offset, pair in
            var task = pair.0
            task.taskIdentifier = written.identifiers + Int64(offset + 1)
            return SQLTaskRepository.asStored(task, id: pair.1)
        }
        var appended: [Event] = []
        for (task, taskEvents) in zip(created, creation.events) {
            for (type, data) in taskEvents {
                appended.append(
                    Event(
                        id: written.eventIDs[appended.count],
                        sessionId: session,
                        sequence: written.sequences + Int64(appended.count + 1),
                        type: type,
                        taskIdentifier: task.taskIdentifier,
                        data: data,
                        createdAt: creation.createdAt,
                        traceparent: creation.traceparent
                    )
                )
            }
        }
        // Announced as they were notified, for this instance's loops.
        commitActions.signals += signals + (written.queued ? [.outbox] : [])
        numbering.notified(written.queued ? [.outbox] : [])
        return TaskCreation.Written(tasks: created, events: appended, queuedDelivery: written.queued)
    }

    private static func ids(_ list: String?) -> [Int64] {
        list.map { $0.split(separator: ",").compactMap { Int64($0) } } ?? []
    }

    /// The statement for tasks' rows with `columns`, built once (a task's rows always have the same columns).
    private static func statement(columns: [String]) -> String {
        if let built = built.withLock({ $0 }), built.columns == columns { return built.text }
        let text = buildStatement(columns: columns)
        built.withLock { $0 = (columns, text) }
        return text
    }

    private static let built = Mutex<(columns: [String], text: String)?>(nil)

    private static func buildStatement(columns: [String]) -> String {
        let values = columns.map { $0 == "task_identifier" ? "taken.last_task_identifier - ? + v.task_identifier" : "v.\($0)" }
        return """
            WITH taken AS (
                UPDATE sessions AS s SET last_task_identifier = last_task_identifier + ?, last_sequence = last_sequence + ?
                WHERE s.id = ? AND s.state = \(Session.State.active.sqlConstant)
                  AND s.tasks_suspended + s.tasks_running + s.tasks_canceling + s.tasks_completed + ? <= ?
                  AND NOT EXISTS (
                      SELECT 1 FROM (\(SQLTenantRepository.standings) WHERE t.id = s.tenant_id) AS standing
                      WHERE standing.queued + ? > COALESCE(standing.max_queued_tasks, ?)
                         OR (? = 1 AND standing.stored >= COALESCE(standing.max_stored_bytes, ?))
                  )
                RETURNING s.id, s.last_task_identifier, s.last_sequence
            ),
            new_tasks AS (
                INSERT INTO tasks (\(columns.joined(separator: ", ")))
                SELECT \(values.joined(separator: ", "))
                FROM taken CROSS JOIN jsonb_populate_recordset(NULL::tasks, CAST(? AS jsonb)) AS v
                RETURNING id, task_identifier
            ),
            event_rows AS (
                SELECT e.*, taken.last_sequence - ? + e.ordinal AS sequence, taken.last_task_identifier - ? + e.task AS task_identifier,
                       CAST(? AS text) AS created_at, CAST(? AS text) AS traceparent
                FROM taken CROSS JOIN jsonb_to_recordset(CAST(? AS jsonb)) AS e(ordinal BIGINT, type TEXT, task BIGINT, data TEXT, message TEXT)
            ),
            new_events AS (
                INSERT INTO events (session_id, sequence, type, task_identifier, data, created_at, traceparent)
                SELECT taken.id, e.sequence, e.type, e.task_identifier, e.data, e.created_at, e.traceparent
                FROM taken CROSS JOIN event_rows AS e ORDER BY e.ordinal
                RETURNING id, sequence
            ),
            queued AS (
                INSERT INTO deliveries (
                    session_id, event_id, sequence, event_type, task_identifier, message_id, status, attempt_count, next_attempt_at,
                    created_at
                )
                SELECT w.session_id, n.id, n.sequence, e.type, e.task_identifier, e.message, \(Delivery.Status.pending.sqlConstant), 0,
                       e.created_at, e.created_at
                FROM new_events AS n JOIN event_rows AS e ON e.sequence = n.sequence JOIN webhooks AS w ON w.session_id = ?
                WHERE w.event_types IS NULL OR CAST(w.event_types AS jsonb) @> jsonb_build_array(e.type)
                RETURNING 1
            ),
            \(CommitNumbering.clauses(when: "EXISTS (SELECT 1 FROM taken)"))
            SELECT taken.last_task_identifier, taken.last_sequence,
                   (SELECT string_agg(CAST(id AS text), ',' ORDER BY task_identifier) FROM new_tasks) AS task_ids,
                   (SELECT string_agg(CAST(id AS text), ',' ORDER BY sequence) FROM new_events) AS event_ids,
                   EXISTS (SELECT 1 FROM queued) AS queued,
                   (SELECT pg_notify(?, ?) FROM committed) AS notified,
                   (SELECT pg_notify(?, ?) WHERE EXISTS (SELECT 1 FROM queued)) AS outbox_notified
            FROM taken
            """
    }
}
