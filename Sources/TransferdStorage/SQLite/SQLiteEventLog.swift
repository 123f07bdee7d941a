import TransferdDomain

/// The event log's own paths on SQLite, whose one writer commits in row id order.
struct SQLiteEventLog: EventLogPaths {
    /// SQLite takes no writes inside `WITH`: the session's next sequences in one statement, the subscriber's
    /// `event_types` in another (as on PostgreSQL), then the events' rows, each a step of one prepared statement.
    func append(
        _ events: ArraySlice<Event>,
        _ db: any SQLConnection,
        numbering: CommitNumbering?,
        announcing announced: Set<Signal>
    ) async throws -> [(event: Event, subscriber: String??)] {
        guard let session = events.first?.sessionId else { return [] }
        guard
            let last: Int64 = try await db.value(
                "UPDATE sessions SET last_sequence = last_sequence + ? WHERE id = ? RETURNING last_sequence",
                [events.count, session]
            )
        else { throw StoreError.rowNotFound("sessions \(session)") }
        let subscriber = try await db.fetchOne("SELECT event_types FROM webhooks WHERE session_id = ?", [session]) { $0[0] as String? }
        var appended: [(event: Event, subscriber: String??)] = []
        for (offset, var event) in events.enumerated() {
            event.sequence = last - Int64(events.count) + Int64(offset) + 1
            event.id = try await RowStatements.insert(into: Event.table, try event.storedColumns(), db)
            appended.append((event, subscriber))
        }
        return appended
    }

    /// One writer commits in id order: the newest id is the present.
    func presentCursor(_ db: any SQLConnection) async throws -> TenantEventCursor {
        TenantEventCursor(commit: 0, id: try await db.value("SELECT MAX(id) FROM events") ?? 0)
    }

    func tenantPage(_ db: any SQLConnection, after cursor: TenantEventCursor) async throws -> (sql: String, position: SQLArguments) {
        (
            """
            SELECT \(SQLEventRepository.columnsOfE), s.identifier AS session_identifier, 0 AS commit_position
            FROM events e JOIN sessions s ON s.id = e.session_id
            WHERE s.tenant_id = ? AND e.id > ? ORDER BY e.id LIMIT ?
            """,
            [cursor.id]
        )
    }
}
