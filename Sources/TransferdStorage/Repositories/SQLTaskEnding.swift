import Foundation
import TransferdDomain

/// Ends of transfers in one PostgreSQL statement outside any transaction (``TaskRepository/end(_:)``), from the
/// tasks as one statement read them (``TaskRepository/endingBases(ids:owner:)``): two round trips, where an end
/// alone was four (`BEGIN`, the release with the tasks' read, the tasks with their events, `COMMIT`) and held its
/// session's row across them. The statement
/// - locks the tasks whose rows are as read (their revision, PostgreSQL's `xmin`, which every write of a row
///   changes) and still leased to the owner;
/// - takes the events' sequences from the session's row, as long as every task was locked, the session is active
///   and its busy tasks outlast the ends or not as the ending says (the row as it is once its lock is taken);
/// - writes the tasks' rows and ends their leases, and appends the events (``SessionAppend``).
///
/// It takes the tasks' rows, then the session's, then the log's head, as every write of a task does.
struct SQLTaskEnding {
    let db: any SQLConnection
    let vault: CredentialVault
    let numbering: CommitNumbering?
    let commitActions: CommitActions

    func bases(ids: [Int64], owner: String) async throws -> [TaskEnding.Basis] {
        guard db.dialect == .postgres, !ids.isEmpty else { return [] }
        return try await db.fetchAll(
            """
            SELECT t.*, CAST(t.xmin AS text) AS revision, '' AS session_columns, s.*,
                   s.tasks_running + s.tasks_canceling AS workload_busy,
                   s.tasks_suspended + s.tasks_running + s.tasks_canceling AS workload_unfinished
            FROM few_rows(CAST(? AS jsonb)) AS j JOIN tasks AS t ON t.id = CAST(j AS bigint) JOIN sessions AS s ON s.id = t.session_id
            WHERE t.lease_owner = ?
            """,
            ["[" + ids.map(String.init).joined(separator: ",") + "]", owner]
        ) { row in
            let parts = row.parts(after: ["session_columns"])
            let session = try Session(row: parts[1], vault: vault)
            return TaskEnding.Basis(
                task: try TransferTask(row: parts[0], vault: vault),
                revision: parts[0]["revision"],
                session: session,
                workload: SessionWorkload(
                    state: session.state,
                    cancelsTasks: session.cancelOnInvalidate,
                    busy: parts[1]["workload_busy"],
                    unfinished: parts[1]["workload_unfinished"]
                )
            )
        }
    }

    func end(_ ending: TaskEnding) async throws -> [Event]? {
        guard db.dialect == .postgres, let numbering, !ending.tasks.isEmpty else { return nil }
        let appending = SessionAppend.Appending(
            sessionID: ending.sessionID,
            events: ending.events.map { ($0.type, $0.taskIdentifier, $0.data) },
            createdAt: ending.createdAt,
            traceparent: ending.traceparent,
            signals: []
        )
        guard let (appendArguments, results) = try Self.append.arguments(appending, numbering, commitActions) else { return nil }
        // Each task's row with the revision it was read at (a key of no column).
        let rows = try ending.tasks.map { ["id": $0.task.rowID, "revision": $0.revision] + (try $0.task.storedColumns()) }
        let count = ending.tasks.count
        let arguments: SQLArguments =
            [
                try JSONRows.text(rows), ending.owner, ending.events.count, ending.sessionID, ending.leavingBusy,
                ending.staysBusy ? 1 : 0, count,
            ] + appendArguments + results
        guard
            let written = try await db.fetchOne(
                Self.statement.text(columns: rows[0].map(\.key).filter { $0 != "id" && $0 != "revision" }),
                arguments,
                { row in
                    (
                        sequences: (row["last_sequence"] as Int64) - Int64(ending.events.count),
                        ended: row["ended"] as Int,
                        eventIDs: SessionAppend.ids(row["event_ids"]),
                        queued: row["queued"] as Bool
                    )
                }
            )
        else { return nil }
        guard written.ended == count, written.eventIDs.count == ending.events.count else {
            throw StoreError.rowNotFound("\(count) tasks and \(ending.events.count) events of session \(ending.sessionID)")
        }
        Self.append.written(appending, queued: written.queued, numbering, commitActions)
        return SessionAppend.events(appending, ids: written.eventIDs, firstSequence: written.sequences + 1)
    }

    /// The events' part: each event's task is its task identifier.
    private static let append = SessionAppend(taskIdentifier: "e.task")

    /// The statement for tasks' rows with `columns`.
    private static let statement = StatementByColumns(buildStatement)

    private static func buildStatement(columns: [String]) -> String {
        """
        WITH rows AS (SELECT j, v.* FROM \(JSONRows.source(of: "tasks"))),
        checked AS (
            SELECT t.id FROM rows JOIN tasks AS t ON t.id = rows.id
            WHERE t.lease_owner = ? AND CAST(t.xmin AS text) = rows.j ->> 'revision'
            FOR NO KEY UPDATE OF t
        ),
        taken AS (
            UPDATE sessions AS s SET last_sequence = last_sequence + ?
            WHERE s.id = ? AND s.state = \(Session.State.active.sqlConstant)
              AND (s.tasks_running + s.tasks_canceling - ? > 0) = (? = 1)
              AND (SELECT count(*) FROM checked) = ?
            RETURNING s.id, s.last_sequence
        ),
        ended AS (
            UPDATE tasks AS t
            SET lease_owner = NULL, lease_expires_at = NULL, \(columns.map { "\($0) = v.\($0)" }.joined(separator: ", "))
            FROM taken CROSS JOIN rows AS v
            WHERE t.id = v.id
            RETURNING t.id
        ),
        \(append.clauses)
        SELECT taken.last_sequence, (SELECT count(*) FROM ended) AS ended,
               \(SessionAppend.results)
        FROM taken
        """
    }
}
