import Foundation
import GRDB
import TransferdDomain

/// Sessions.
struct SQLSessionRepository: SessionRepository {
    let db: any SQLConnection
    let vault: CredentialVault

    func find(id: Int64) async throws -> Session? {
        try await db.fetchOne("SELECT * FROM sessions WHERE id = ?\(db.rowLock)", [id], { try Session(row: $0, vault: vault) })
    }

    func live(identifier: String, tenantID: Int64) async throws -> Session? {
        try await db.fetchOne(
            "SELECT * FROM sessions WHERE tenant_id = ? AND identifier = ? AND state <> ? AND deleted_at IS NULL\(db.rowLock)",
            [tenantID, identifier, Session.State.invalidated],
            { try Session(row: $0, vault: vault) }
        )
    }

    func latest(identifier: String, tenantID: Int64) async throws -> Session? {
        try await db.fetchOne(
            "SELECT * FROM sessions WHERE tenant_id = ? AND identifier = ? AND deleted_at IS NULL ORDER BY id DESC LIMIT 1\(db.rowLock)",
            [tenantID, identifier],
            { try Session(row: $0, vault: vault) }
        )
    }

    func latest(identifier: String, tenantID: Int64, task taskIdentifier: Int64) async throws -> (session: Session, task: TransferTask?)? {
        try await db.fetchOne(
            """
            SELECT s.*, NULL AS task_columns, t.*
            FROM sessions s LEFT JOIN tasks t ON t.session_id = s.id AND t.task_identifier = ?
            WHERE s.tenant_id = ? AND s.identifier = ? AND s.deleted_at IS NULL ORDER BY s.id DESC LIMIT 1
            """,
            [taskIdentifier, tenantID, identifier]
        ) { row in
            let parts = row.parts(Self.withTaskLayout)
            let task = (parts[1][TaskColumn.id] as Int64?) == nil ? nil : try TransferTask(row: parts[1], vault: vault)
            return (try Session(row: parts[0], vault: vault), task)
        }
    }

    private static let withTaskLayout = JoinLayout(after: ["task_columns"])

    func latestWithDetails(identifier: String, tenantID: Int64) async throws -> (session: Session, details: Session.Details)? {
        try await db.fetchOne(
            """
            SELECT s.*, NULL AS detail_columns, \(Self.detailColumns)
            WHERE s.tenant_id = ? AND s.identifier = ? AND s.deleted_at IS NULL ORDER BY s.id DESC LIMIT 1
            """,
            [tenantID, identifier]
        ) { row in
            let parts = row.parts(Self.withDetailsLayout)
            return (try Session(row: parts[0], vault: vault), try details(parts[1]))
        }
    }

    private static let withDetailsLayout = JoinLayout(after: ["detail_columns"])

    func insert(_ session: Session) async throws -> Session {
        let id = try await RowStatements.insert(into: Session.table, try session.storedColumns(vault), db)
        // Read back, so that the session is shown as it is stored (dates at the database's precision).
        guard let stored = try await find(id: id) else { throw StoreError.rowNotFound("sessions \(id)") }
        return stored
    }

    func updateState(of session: Session) async throws {
        try await db.execute(
            "UPDATE sessions SET state = ?, cancel_on_invalidate = ?, invalidated_at = ? WHERE id = ?",
            [session.state, session.cancelOnInvalidate, StoredDate.text(orNil: session.invalidatedAt), session.rowID]
        )
    }

    func updateConfiguration(of session: Session) async throws {
        try await db.execute(
            "UPDATE sessions SET configuration = ?, retention_period = ?, history_retention = ?, sends_launch_events = ? WHERE id = ?",
            [
                try Session.sealed(session.configuration, vault), session.configuration.retentionPeriod,
                session.configuration.historyRetention, session.configuration.sessionSendsLaunchEvents, session.rowID,
            ]
        )
    }

    func markDeleted(id: Int64, at now: Date) async throws {
        try await db.execute("UPDATE sessions SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL", [StoredDate.text(now), id])
    }

    func updateCredentials(of session: Session) async throws {
        try await db.execute("UPDATE sessions SET credentials = ? WHERE id = ?", [try RowCoding.json(session.credentials), session.rowID])
    }

    func list(after cursor: Int64, limit: Int, tenantID: Int64?) async throws -> [Session] {
        guard let tenantID else {
            return try await db.fetchAll(
                "SELECT * FROM sessions WHERE id > ? AND deleted_at IS NULL ORDER BY id LIMIT ?",
                [cursor, limit],
                { try Session(row: $0, vault: vault) }
            )
        }
        return try await db.fetchAll(
            "SELECT * FROM sessions WHERE id > ? AND tenant_id = ? AND deleted_at IS NULL ORDER BY id LIMIT ?",
            [cursor, tenantID, limit],
            { try Session(row: $0, vault: vault) }
        )
    }

    /// Every session's details in one statement (a `GET` of a session reads them on each request): the task counts
    /// and stored bytes are the counters that the tasks' triggers keep, and the webhook's columns follow.
    func details(sessionIDs: [Int64]) async throws -> [Int64: Session.Details] {
        var details: [Int64: Session.Details] = [:]
        try await db.forEachRow(
            "SELECT \(Self.detailColumns) WHERE s.id IN (\(Placeholders.list(sessionIDs.count)))",
            sessionIDs
        ) { row in details[row["id"]] = try self.details(row) }
        return details
    }

    /// The columns of ``Session/Details`` for each session `s`, and what they are read from, up to the `WHERE`.
    private static let detailColumns = """
        s.id, t.name, s.tasks_suspended, s.tasks_running, s.tasks_canceling, s.tasks_completed, s.stored_bytes,
          (SELECT COUNT(*) FROM deliveries d WHERE d.session_id = s.id AND d.status = \(Delivery.Status.pending.sqlConstant))
            AS pending_deliveries,
          \(WebhookSubscription.columns)
        FROM sessions s JOIN tenants t ON t.id = s.tenant_id LEFT JOIN webhooks w ON w.session_id = s.id
          \(WebhookSubscription.endpointJoin)
        """

    /// A session's details from the columns of `detailColumns`.
    private func details(_ row: StoredRow) throws -> Session.Details {
        var session = Session.Details()
        session.tenant = row["name"]
        session.taskCounts = [
            .suspended: row["tasks_suspended"], .running: row["tasks_running"], .canceling: row["tasks_canceling"],
            .completed: row["tasks_completed"],
        ]
        session.storedBytes = row["stored_bytes"]
        session.pendingDeliveries = row["pending_deliveries"]
        if (row["session_id"] as Int64?) != nil {
            session.webhook = try WebhookSubscription(row: row, vault: vault)
        }
        return session
    }

    func takeTaskIdentifiers(_ count: Int, sessionID: Int64) async throws -> TakenTaskIdentifiers? {
        precondition(count > 0, "at least one identifier is taken")
        return try await db.tasks.takeIdentifiers(count, sessionID: sessionID, self)
    }

    /// The `UPDATE` that takes the identifiers (its arguments their count and the session's id), answering the
    /// session's row and its count of tasks, `task_count` (``taken(_:from:)``).
    static let takingIdentifiers = """
        UPDATE sessions SET last_task_identifier = last_task_identifier + ? WHERE id = ?
        RETURNING *, tasks_suspended + tasks_running + tasks_canceling + tasks_completed AS task_count
        """

    /// The session, the `count` identifiers taken and its count of tasks, from a row of ``takingIdentifiers``.
    func taken(_ count: Int, from row: StoredRow) throws -> (session: Session, identifiers: ClosedRange<Int64>, tasks: Int) {
        let session = try Session(row: row, vault: vault)
        return (session, session.lastTaskIdentifier - Int64(count) + 1...session.lastTaskIdentifier, row["task_count"])
    }

    /// A session's deliveries no other instance than the first argument holds: no lease, its own, or one that expired.
    /// The condition on a session's row under which an owner (the first argument) may lease its deliveries at a time
    /// (the second).
    static let deliveriesFree = "(delivery_owner IS NULL OR delivery_owner = ? OR delivery_lease_expires_at <= ?)"

    func leaseDeliveries(sessionID: Int64, owner: String, until expiresAt: Date, at now: Date) async throws -> Bool {
        try await db.leases.leaseDeliveries(sessionID: sessionID, owner: owner, until: expiresAt, at: now)
    }

    func expireDeliveryLeases(ownedBy owner: String?) async throws {
        let expired = StoredDate.text(Date(timeIntervalSince1970: 0))
        if let owner {
            try await db.execute("UPDATE sessions SET delivery_lease_expires_at = ? WHERE delivery_owner = ?", [expired, owner])
        } else {
            try await db.execute("UPDATE sessions SET delivery_lease_expires_at = ? WHERE delivery_owner IS NOT NULL", [expired])
        }
    }

    func renewDeliveryLeases(sessionIDs: [Int64], owner: String, until expiresAt: Date) async throws -> [Int64: LeaseRenewal<Void>] {
        try await db.leases.renewDeliveries(sessionIDs: sessionIDs, owner: owner, until: expiresAt)
    }

    func releaseDeliveries(sessionID: Int64, owner: String) async throws {
        try await db.leases.releaseDeliveries(sessionID: sessionID, owner: owner)
    }

    func nextDeliveryLeaseExpiry(notOwnedBy owner: String) async throws -> Date? {
        try await db.value(
            "SELECT MIN(delivery_lease_expires_at) FROM sessions WHERE delivery_owner IS NOT NULL AND delivery_owner <> ?",
            [owner]
        )
    }
}
