import Foundation
import GRDB
import TransferdDomain

/// The event log's own paths on PostgreSQL, where transactions commit in any order: the tenant's stream follows commit
/// positions (``CommitNumbering``).
struct PostgresEventLog: EventLogPaths {
    /// One round trip for events of one session: the session's next sequences, the events' rows, and
    /// the `event_types` of the session's subscriber (nil: no subscriber; `.some(nil)`: one that takes every type),
    /// one column of the subscriber's row rather than the whole subscription. The transaction's first append also
    /// takes its commit position and notifies the signals `announced` (``CommitNumbering``).
    func append(
        _ events: ArraySlice<Event>,
        _ db: any SQLConnection,
        numbering: CommitNumbering?,
        announcing announced: Set<Signal>
    ) async throws -> [(event: Event, subscriber: String??)] {
        guard let session = events.first?.sessionId else { return [] }
        let values = events.indices.map { "(\($0 - events.startIndex + 1), ?, CAST(? AS BIGINT), ?, ?, ?)" }.joined(separator: ", ")
        var arguments: SQLArguments = [events.count, session]
        for event in events {
            arguments += [
                event.type.rawValue, event.taskIdentifier, try RowCoding.json(event.payload), StoredDate.text(event.createdAt),
                event.traceparent,
            ]
        }
        let commit = numbering?.take(announcing: announced)
        arguments += [session, events.count] + (commit?.notification ?? []) + [session]
        var appended: [(event: Event, subscriber: String??)] = []
        var position = events.startIndex
        // What the transaction holds (a creation's tasks) goes with it: the statement reads no task.
        try await db.forEachRow(
            takingInHeldWrites: """
                WITH numbered AS (UPDATE sessions SET last_sequence = last_sequence + ? WHERE id = ? RETURNING last_sequence),
                new (ordinal, type, task_identifier, data, created_at, traceparent) AS (VALUES \(values)),
                inserted AS (
                    INSERT INTO events (session_id, sequence, type, task_identifier, data, created_at, traceparent)
                    SELECT ?, numbered.last_sequence - ? + new.ordinal, new.type, new.task_identifier, new.data, new.created_at,
                           new.traceparent
                    FROM numbered CROSS JOIN new ORDER BY new.ordinal RETURNING id, sequence
                )\(commit.map { ",\n" + $0.clauses } ?? "")
                SELECT inserted.id, inserted.sequence, webhooks.session_id IS NOT NULL AS subscribed, webhooks.event_types\(
                commit?.notification == nil ? "" : ", (SELECT pg_notify(?, ?) FROM committed)")
                FROM inserted LEFT JOIN webhooks ON webhooks.session_id = ? ORDER BY inserted.sequence
                """,
            arguments
        ) { row in
            var event = events[position]
            position += 1
            (event.id, event.sequence) = (row[0], row[1])
            appended.append((event, (row[2] as Bool) ? .some(row[3] as String?) : .none))
        }
        guard appended.count == events.count else { throw StoreError.rowNotFound("sessions \(session)") }
        return appended
    }

    /// A transaction that has not committed yet takes a later position than the last one committed.
    func presentCursor(_ db: any SQLConnection) async throws -> TenantEventCursor {
        TenantEventCursor(commit: try await db.value("SELECT position FROM event_log_head") ?? 0, id: .max)
    }

    func tenantPage(_ db: any SQLConnection, after cursor: TenantEventCursor) async throws -> (sql: String, position: SQLArguments) {
        (
            """
            SELECT e.*, c.position AS commit_position FROM event_commits c CROSS JOIN LATERAL (
                SELECT \(SQLEventRepository.columnsOfE), s.identifier AS session_identifier
                FROM events e JOIN sessions s ON s.id = e.session_id
                WHERE e.transaction_id = c.transaction_id AND s.tenant_id = ? AND (c.position > ? OR e.id > ?)
                OFFSET 0
            ) e
            WHERE c.position >= ? ORDER BY c.position, e.id LIMIT ?
            """,
            try await commitPosition(of: cursor, db)
        )
    }

    /// The cursor's position in commit order: an earlier version's cursor names the transaction that wrote its event
    /// (or, for the present, the oldest that may still have been writing), read from then in transaction order,
    /// which the commits of the events written before this version were numbered in.
    ///
    /// The arguments are the query's: the position, the id, the position. The query walks the commits from the
    /// cursor's on by their key and reads each one's events (`OFFSET 0` keeps the planner from flattening the
    /// lateral join): joined plainly, the planner, misled by statistics behind a growing table, read every event of
    /// the tenant for each poll (9 ms over 10,000 events under the benchmark's load, against 0.3 ms).
    private func commitPosition(of cursor: TenantEventCursor, _ db: any SQLConnection) async throws -> SQLArguments {
        let (commit, id) = try await commitAndID(of: cursor, db)
        return [commit, id, commit]
    }

    private func commitAndID(of cursor: TenantEventCursor, _ db: any SQLConnection) async throws -> (Int64, Int64) {
        guard cursor.namesTransaction else { return (cursor.commit, cursor.id) }
        let transaction = String(cursor.commit)
        if let commit: Int64 = try await db.value(
            "SELECT position FROM event_commits WHERE transaction_id = CAST(? AS text)::xid8",
            [transaction]
        ) {
            return (commit, cursor.id)
        }
        let before: Int64? = try await db.value(
            "SELECT MAX(position) FROM event_commits WHERE transaction_id < CAST(? AS text)::xid8",
            [transaction]
        )
        return (before ?? 0, Int64.max)
    }
}
