import TransferdDomain

/// The tasks' paths on PostgreSQL, where a statement is a round trip: the identifiers come with the tenant's standing
/// and reserved row ids, and a creation of a few tasks (``PostgresTaskCreation``) and an end of transfers
/// (``PostgresTaskEnding``) are one statement each.
struct PostgresTasks: TaskPaths {
    /// The most tasks of a creation whose row ids are reserved with their identifiers.
    private static let reservedRowIDs = 16

    /// The tenant's standing and the tasks' row ids come with the identifiers: one round trip. Ids are reserved for a
    /// few tasks only: a batch's insert, sent with its events, made a statement that took longer to plan than the
    /// round trip it saved (1,000 tasks: 115 ms against 99).
    func takeIdentifiers(_ count: Int, sessionID: Int64, _ sessions: SQLSessionRepository) async throws -> TakenTaskIdentifiers? {
        let reserved = count <= Self.reservedRowIDs ? count : 0
        let columns = [
            "id", "name", "max_sessions", "max_queued_tasks", "max_stored_bytes", "max_transfers", "max_fetches", "bandwidth_schedule",
            "sessions", "queued", "stored",
        ]
        return try await sessions.db.fetchOne(
            """
            WITH taken AS (\(SQLSessionRepository.takingIdentifiers))
            SELECT taken.*, \(columns.map { "standing.\($0) AS standing_\($0)" }.joined(separator: ", ")),
                   (SELECT string_agg(CAST(id AS text), ',' ORDER BY id)
                    FROM (SELECT nextval('tasks_id_seq') AS id FROM generate_series(1, ?)) AS reserved) AS row_ids
            FROM taken LEFT JOIN LATERAL (\(SQLTenantRepository.standings) WHERE t.id = taken.tenant_id) AS standing ON TRUE
            """,
            [count, sessionID, reserved]
        ) { row in
            let (session, identifiers, tasks) = try sessions.taken(count, from: row)
            let tenant = (row["standing_id"] as Int64?) == nil ? nil : SQLTenantRepository.standing(row: row, prefix: "standing_")
            let rowIDs = (row["row_ids"] as String?).map { $0.split(separator: ",").compactMap { Int64($0) } }
            guard rowIDs?.count ?? 0 == reserved else { throw StoreError.rowNotFound("\(reserved) row ids of tasks") }
            return TakenTaskIdentifiers(session: session, identifiers: identifiers, tasks: tasks, tenant: tenant, rowIDs: rowIDs)
        }
    }

    func create(_ creation: TaskCreation, _ tasks: SQLTaskRepository) async throws -> TaskCreation.Written? {
        try await PostgresTaskCreation(db: tasks.db, vault: tasks.vault, numbering: tasks.numbering, commitActions: tasks.commitActions)
            .create(creation)
    }

    func endingBases(ids: [Int64], owner: String, _ tasks: SQLTaskRepository) async throws -> [TaskEnding.Basis] {
        try await ending(tasks).bases(ids: ids, owner: owner)
    }

    func end(_ ending: TaskEnding, _ tasks: SQLTaskRepository) async throws -> [Event]? {
        try await self.ending(tasks).end(ending)
    }

    private func ending(_ tasks: SQLTaskRepository) -> PostgresTaskEnding {
        PostgresTaskEnding(db: tasks.db, vault: tasks.vault, numbering: tasks.numbering, commitActions: tasks.commitActions)
    }

    var retentionExpired: String {
        "CAST(t.completed_at AS timestamp) + make_interval(secs => s.retention_period) < CAST(? AS timestamp)"
    }
}
