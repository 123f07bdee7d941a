import TransferdDomain

/// The tasks' paths on SQLite, where a statement is a call: a creation and an end of transfers are transactions of
/// their own, as the services write them, and the tenant's standing is read in a call after the identifiers.
struct SQLiteTasks: TaskPaths {
    func takeIdentifiers(_ count: Int, sessionID: Int64, _ sessions: SQLSessionRepository) async throws -> TakenTaskIdentifiers? {
        // SQLite takes no writes inside `WITH`: the tenant's standing in a call of its own.
        let taken = try await sessions.db.fetchOne(SQLSessionRepository.takingIdentifiers, [count, sessionID]) { row in
            try sessions.taken(count, from: row)
        }
        guard let (session, identifiers, tasks) = taken else { return nil }
        let tenant = try await SQLTenantRepository(db: sessions.db, vault: sessions.vault).standing(id: session.tenantId)
        return TakenTaskIdentifiers(session: session, identifiers: identifiers, tasks: tasks, tenant: tenant, rowIDs: nil)
    }

    func create(_ creation: TaskCreation, _ tasks: SQLTaskRepository) async throws -> TaskCreation.Written? { nil }

    func endingBases(ids: [Int64], owner: String, _ tasks: SQLTaskRepository) async throws -> [TaskEnding.Basis] { [] }

    func end(_ ending: TaskEnding, _ tasks: SQLTaskRepository) async throws -> [Event]? { nil }

    var retentionExpired: String { "julianday(t.completed_at) + s.retention_period / 86400.0 < julianday(?)" }
}
