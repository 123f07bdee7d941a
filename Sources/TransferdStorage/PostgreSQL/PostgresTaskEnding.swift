import Foundation
import TransferdDomain

/// Ends of transfers in one PostgreSQL statement outside any transaction (``TaskRepository/end(_:)``), from the
/// tasks as their leases left them or as one statement read them again (``TaskRepository/endingBases(ids:owner:)``):
/// one round trip, or two, where an end alone was four (`BEGIN`, the release with the tasks' read, the tasks with
/// their events, `COMMIT`) and held its session's row across them. The statement
/// - locks the tasks whose rows are as known (their revision, PostgreSQL's `xmin`, which every write of a row
///   changes) and still leased to the owner;
/// - takes the events' sequences from the session's row, as long as every task was locked and the session is
///   active, with the events for a session gone idle when its busy tasks, as they are once its row is locked, are
///   all among the ends;
/// - writes the tasks' rows and ends their leases, and appends the events (``SessionAppend``).
///
/// It takes the tasks' rows, then the session's, then the log's head, as every write of a task does.
struct PostgresTaskEnding {
    let db: any SQLConnection
    let vault: CredentialVault
    let numbering: CommitNumbering?
    let commitActions: CommitActions

    private static let basisLayout = JoinLayout(after: ["session_columns"])

    func bases(ids: [Int64], owner: String) async throws -> [TaskEnding.Basis] {
        guard !ids.isEmpty else { return [] }
        return try await db.fetchAll(
            """
            SELECT t.*, CAST(t.xmin AS text) AS revision, '' AS session_columns, s.*
            FROM few_rows(CAST(? AS jsonb)) AS j JOIN tasks AS t ON t.id = CAST(j AS bigint) JOIN sessions AS s ON s.id = t.session_id
            WHERE t.lease_owner = ?
            """,
            ["[" + ids.map(String.init).joined(separator: ",") + "]", owner]
        ) { row in
            let parts = row.parts(Self.basisLayout)
            return TaskEnding.Basis(
                task: try TransferTask(row: parts[0], vault: vault),
                revision: parts[0]["revision"],
                session: try Session(row: parts[1], vault: vault)
            )
        }
    }

    func end(_ ending: TaskEnding) async throws -> [Event]? {
        guard let numbering, !ending.tasks.isEmpty else { return nil }
        let appending = SessionAppend.Appending(
            sessionID: ending.sessionID,
            events: (ending.events + ending.eventsIfIdle).map { ($0.taskIdentifier, $0.payload) },
            createdAt: ending.createdAt,
            traceparent: ending.traceparent,
            signals: []
        )
        guard let (appendArguments, results) = try Self.append.arguments(appending, numbering, commitActions) else { return nil }
        // Each task's row with the revision it was read at (a key of no column).
        let rows = try ending.tasks.map { ["id": $0.task.rowID, "revision": $0.revision] + (try $0.task.storedColumns()) }
        let count = ending.tasks.count
        // The events' count, as an expression of the session's row: those for an idle session only when it is.
        let appended: SQLArguments = [ending.events.count, ending.leavingBusy, ending.eventsIfIdle.count]
        let arguments: SQLArguments =
            [try JSONRows.text(rows), ending.owner] + appended + [ending.sessionID, count] + appended + appendArguments + results
        guard
            let written = try await db.fetchOne(
                Self.statement.text(columns: rows[0].map(\.key).filter { $0 != "id" && $0 != "revision" }),
                arguments,
                { row in
                    (
                        sequences: (row["last_sequence"] as Int64) - (row["appended"] as Int64),
                        appended: row["appended"] as Int,
                        ended: row["ended"] as Int,
                        eventIDs: SessionAppend.ids(row["event_ids"]),
                        queued: row["queued"] as Bool
                    )
                }
            )
        else { return nil }
        guard written.ended == count, written.eventIDs.count == written.appended, written.appended >= ending.events.count else {
            throw StoreError.rowNotFound("\(count) tasks and \(written.appended) events of session \(ending.sessionID)")
        }
        Self.append.written(appending, queued: written.queued, numbering, commitActions)
        return SessionAppend.events(appending, ids: written.eventIDs, firstSequence: written.sequences + 1)
    }

    /// The events' part: each event's task is its task identifier.
    private static let append = SessionAppend(taskIdentifier: "e.task")

    /// The statement for tasks' rows with `columns`.
    private static let statement = StatementByColumns(buildStatement)

    private static func buildStatement(columns: [String]) -> String {
        // The events appended, of the session's row (the busy tasks it counts with the ends'): the ending's, and
        // those for an idle session when the ends leave it none.
        let appended = "CAST(? AS bigint) + CASE WHEN s.tasks_running + s.tasks_canceling - ? > 0 THEN 0 ELSE CAST(? AS bigint) END"
        return """
            WITH rows AS (SELECT j, v.* FROM \(JSONRows.source(of: "tasks"))),
            checked AS (
                SELECT t.id FROM rows JOIN tasks AS t ON t.id = rows.id
                WHERE t.lease_owner = ? AND CAST(t.xmin AS text) = rows.j ->> 'revision'
                FOR NO KEY UPDATE OF t
            ),
            taken AS (
                UPDATE sessions AS s SET last_sequence = last_sequence + \(appended)
                WHERE s.id = ? AND s.state = \(Session.State.active.sqlConstant) AND (SELECT count(*) FROM checked) = ?
                RETURNING s.id, s.last_sequence, \(appended) AS appended
            ),
            ended AS (
                UPDATE tasks AS t
                SET lease_owner = NULL, lease_expires_at = NULL, \(columns.map { "\($0) = v.\($0)" }.joined(separator: ", "))
                FROM taken CROSS JOIN rows AS v
                WHERE t.id = v.id
                RETURNING t.id
            ),
            \(append.clauses)
            SELECT taken.last_sequence, taken.appended, (SELECT count(*) FROM ended) AS ended,
                   \(SessionAppend.results)
            FROM taken
            """
    }
}
