import Foundation
import GRDB
import TransferdDomain

/// The outbox's deliveries and their attempts.
struct SQLDeliveryRepository: DeliveryRepository {
    let db: any SQLConnection
    let vault: CredentialVault

    func find(id: Int64) async throws -> Delivery? {
        try await db.fetchOne("SELECT * FROM deliveries WHERE id = ?\(db.rowLock)", [id], Delivery.init(row:))
    }

    func find(eventID: Int64) async throws -> Delivery? {
        try await db.fetchOne("SELECT * FROM deliveries WHERE event_id = ?\(db.rowLock)", [eventID], Delivery.init(row:))
    }

    /// The event's columns (with its session's identifier), then the subscriber's, then the task's, each part after
    /// a marker column: one row, read without a transaction around it.
    func content(of delivery: Delivery) async throws -> DeliveryContent? {
        try await db.fetchOne(
            """
            SELECT s.identifier AS session_identifier, e.*, NULL AS webhook_columns, w.*, NULL AS task_columns, t.*
            FROM events e JOIN sessions s ON s.id = e.session_id JOIN webhooks w ON w.session_id = e.session_id
            LEFT JOIN tasks t ON t.session_id = e.session_id AND t.task_identifier = e.task_identifier
            WHERE e.id = ?
            """,
            [delivery.eventId]
        ) { row in
            let parts = row.parts(after: ["webhook_columns", "task_columns"])
            let task: TransferTask? =
                (parts[2][TaskColumn.id] as Int64?) == nil ? nil : try TransferTask(row: parts[2], vault: vault)
            return DeliveryContent(
                event: try Event(row: parts[0]),
                sessionIdentifier: parts[0]["session_identifier"],
                webhook: try WebhookSubscription(row: parts[1], vault: vault),
                task: task
            )
        }
    }

    /// Writes the columns an attempt changes (the others never change), through one statement per expected status.
    /// The status is written as a constant: bound, it would make SQLite prepare the statement again whenever its
    /// value changed (a partial index's condition names `status`).
    func update(_ delivery: Delivery, ifStatus expected: Delivery.Status) async throws -> Bool {
        try await db.execute(Self.update(ifStatus: expected), Self.changes(of: delivery)) > 0
    }

    private static func update(ifStatus expected: Delivery.Status) -> String {
        """
        UPDATE deliveries SET status = ?, attempt_count = ?, next_attempt_at = ?, last_error = ?, completed_at = ?
        WHERE id = ? AND status = \(expected.sqlConstant)
        """
    }

    private static func changes(of delivery: Delivery) -> SQLArguments {
        [
            delivery.status.rawValue, delivery.attemptCount, StoredDate.text(delivery.nextAttemptAt), delivery.lastError,
            StoredDate.text(orNil: delivery.completedAt), delivery.rowID,
        ]
    }

    func record(
        _ attempt: DeliveryAttempt,
        of delivery: Delivery,
        health: WebhookSubscription.State
    ) async throws
        -> (recorded: Bool, next: Delivery?)
    {
        let columns = attempt.storedColumns()
        let insertion =
            "INSERT INTO \(DeliveryAttempt.table) (\(columns.map(\.key).joined(separator: ", "))) VALUES (\(Placeholders.list(columns.count)))"
        let healthArguments: SQLArguments = [health, delivery.sessionId, health]
        let acknowledged = delivery.status == .delivered
        let acknowledgement = "UPDATE sessions SET last_acknowledged_sequence = ? WHERE id = ? AND last_acknowledged_sequence < ?"
        let acknowledgementArguments: SQLArguments = [delivery.sequence, delivery.sessionId, delivery.sequence]
        guard db.dialect == .postgres else {
            try await db.execute(insertion, columns.map(\.value))
            guard try await update(delivery, ifStatus: .pending) else { return (false, nil) }
            try await db.execute("UPDATE webhooks SET state = ? WHERE session_id = ? AND state <> ?", healthArguments)
            guard acknowledged else { return (true, nil) }
            try await db.execute(acknowledgement, acknowledgementArguments)
            return (true, try await pendingHead(sessionID: delivery.sessionId))
        }
        // Data-modifying CTEs all run, whatever the outer query reads; the health and the acknowledgement wait for the
        // update's row. The outer query sees the rows as they were before the statement: the next delivery is the
        // first pending one after this one.
        return try await db.fetchOne(
            """
            WITH attempt AS (\(insertion)),
            updated AS (\(Self.update(ifStatus: .pending)) RETURNING id),
            health AS (UPDATE webhooks SET state = ? WHERE session_id = ? AND state <> ? AND EXISTS (SELECT 1 FROM updated)),
            acknowledged AS (\(acknowledgement) AND ? = 1 AND EXISTS (SELECT 1 FROM updated))
            SELECT (SELECT COUNT(*) FROM updated) AS recorded, NULL AS next_columns, next.* FROM (SELECT 1) AS one
            LEFT JOIN LATERAL (
                SELECT d.* FROM deliveries d JOIN webhooks w ON w.session_id = d.session_id JOIN sessions s ON s.id = d.session_id
                WHERE ? = 1 AND d.status = \(Delivery.Status.pending.sqlConstant) AND d.session_id = ? AND d.sequence > ?
                  AND w.state <> \(WebhookSubscription.State.disabled.sqlConstant) AND s.sends_launch_events = 1
                ORDER BY d.sequence LIMIT 1\(db.rowLock(of: "d"))
            ) AS next ON TRUE
            """,
            columns.map(\.value) + Self.changes(of: delivery) + healthArguments + acknowledgementArguments
                + [acknowledged, acknowledged, delivery.sessionId, delivery.sequence]
        ) { row in
            let parts = row.parts(after: ["next_columns"])
            guard (parts[0]["recorded"] as Int64) == 1 else { return (false, nil) }
            return (true, (parts[1]["id"] as Int64?) == nil ? nil : try Delivery(row: parts[1]))
        } ?? (false, nil)
    }

    func list(sessionID: Int64, after cursor: Int64, status: Delivery.Status?, limit: Int) async throws -> [(Delivery, [DeliveryAttempt])] {
        let deliveries =
            if let status {
                try await db.fetchAll(
                    "SELECT * FROM deliveries WHERE session_id = ? AND id > ? AND status = ? ORDER BY id LIMIT ?",
                    [sessionID, cursor, status, limit],
                    Delivery.init(row:)
                )
            } else {
                try await db.fetchAll(
                    "SELECT * FROM deliveries WHERE session_id = ? AND id > ? ORDER BY id LIMIT ?",
                    [sessionID, cursor, limit],
                    Delivery.init(row:)
                )
            }
        let ids = deliveries.map(\.rowID)
        let attempts = try await db.fetchAll(
            "SELECT * FROM delivery_attempts WHERE delivery_id IN (\(Placeholders.list(ids.count))) ORDER BY id",
            ids,
            DeliveryAttempt.init(row:)
        )
        let byDelivery = Dictionary(grouping: attempts, by: \.deliveryId)
        return deliveries.map { ($0, byDelivery[$0.rowID] ?? []) }
    }

    func list(sessionID: Int64, status: Delivery.Status) async throws -> [Delivery] {
        try await db.fetchAll(
            "SELECT * FROM deliveries WHERE session_id = ? AND status = ? ORDER BY id\(db.rowLock)",
            [sessionID, status],
            Delivery.init(row:)
        )
    }

    func failPending(sessionID: Int64, message: String, at now: Date) async throws {
        try await db.execute(
            """
            UPDATE deliveries SET status = ?, completed_at = ?, last_error = ?
            WHERE session_id = ? AND status = \(Delivery.Status.pending.sqlConstant)
            """,
            [Delivery.Status.failed, StoredDate.text(now), message, sessionID]
        )
    }

    /// One statement on PostgreSQL for the deliveries, however many, and one for each progress event.
    func enqueue(_ events: [Event]) async throws {
        guard !events.isEmpty else { return }
        _ = try await RowStatements.insert(into: Delivery.table, rows: events.map { Delivery(pending: $0).storedColumns() }, db)
        for event in events where Self.progressTypes.contains(event.type) {
            // The partial index `deliveries_pending_progress` holds the pending progress; its conditions are written
            // as constants here, as SQLite uses a partial index only for queries that repeat them.
            try await db.execute(
                """
                UPDATE deliveries SET status = \(Delivery.Status.coalesced.sqlConstant), completed_at = ?
                WHERE status = \(Delivery.Status.pending.sqlConstant) AND event_type IN \(Self.progressTypesSQL)
                  AND session_id = ? AND task_identifier = ? AND event_type = ? AND sequence < ?
                  AND sequence > (SELECT MIN(sequence) FROM deliveries WHERE status = \(Delivery.Status.pending.sqlConstant) AND session_id = ?)
                """,
                [StoredDate.text(event.createdAt), event.sessionId, event.taskIdentifier, event.type, event.sequence, event.sessionId]
            )
        }
    }

    private static let progressTypes: [EventType] = [.taskProgress, .taskUploadProgress]
    private static let progressTypesSQL = "(" + progressTypes.map(\.sqlConstant).joined(separator: ", ") + ")"

    func pendingHeads(exceptSessions: [Int64], leasableBy owner: String, at now: Date) async throws -> [DeliveryHead] {
        let busy = Set(exceptSessions)
        let lease = (owner, StoredDate.text(now))
        guard db.dialect == .sqlite else {
            return try await db.fetchAll(Self.headsWalk, [lease.0, lease.1]) { row in
                DeliveryHead(delivery: try Delivery(row: row), tenantID: row["head_tenant"])
            }
            .filter { !busy.contains($0.delivery.sessionId) }
        }
        var heads: [DeliveryHead] = []
        var session = Int64.min
        // One seek per session with pending deliveries: its lowest pending sequence is its head.
        while let head = try await db.fetchOne(
            """
            SELECT * FROM deliveries WHERE status = \(Delivery.Status.pending.sqlConstant) AND session_id > ?
            ORDER BY session_id, sequence LIMIT 1
            """,
            [session],
            Delivery.init(row:)
        ) {
            session = head.sessionId
            if !busy.contains(session), let tenant = try await tenantIfSent(sessionID: session, leasableBy: lease) {
                heads.append(DeliveryHead(delivery: head, tenantID: tenant))
            }
        }
        return heads.sorted { $0.delivery.nextAttemptAt < $1.delivery.nextAttemptAt }
    }

    /// The heads of every session's pending deliveries whose subscriber is enabled, with their tenants, the earliest
    /// due first, in one statement: the same seek a session as SQLite's walk, each from the session before it (a
    /// statement a session was as many round trips as sessions with a backlog, every time the dispatcher looked).
    /// Each head's row is read by its key (`OFFSET 0` keeps the planner from flattening the lateral join): joined
    /// plainly, it was a scan of every delivery (25 ms against 3 ms for 100 sessions and 10,000 deliveries).
    private static let headsWalk = """
        WITH RECURSIVE heads (session_id, id) AS (
            (SELECT session_id, id FROM deliveries WHERE status = \(Delivery.Status.pending.sqlConstant) ORDER BY session_id, sequence LIMIT 1)
            UNION ALL
            SELECT next.session_id, next.id FROM heads CROSS JOIN LATERAL (
                SELECT session_id, id FROM deliveries
                WHERE status = \(Delivery.Status.pending.sqlConstant) AND session_id > heads.session_id
                ORDER BY session_id, sequence LIMIT 1
            ) AS next
        )
        SELECT d.*, s.tenant_id AS head_tenant FROM heads h CROSS JOIN LATERAL (SELECT * FROM deliveries WHERE id = h.id OFFSET 0) AS d
        JOIN webhooks w ON w.session_id = d.session_id JOIN sessions s ON s.id = d.session_id
        WHERE w.state <> \(WebhookSubscription.State.disabled.sqlConstant) AND s.sends_launch_events = 1
          AND \(SQLSessionRepository.deliveriesFree)
        ORDER BY d.next_attempt_at
        """

    func countPending() async throws -> Int {
        try await db.value("SELECT COUNT(*) FROM deliveries WHERE status = \(Delivery.Status.pending.sqlConstant)", []) ?? 0
    }

    func pendingHead(sessionID: Int64) async throws -> Delivery? {
        let head = try await db.fetchOne(
            "SELECT * FROM deliveries WHERE status = \(Delivery.Status.pending.sqlConstant) AND session_id = ? ORDER BY sequence LIMIT 1\(db.rowLock)",
            [sessionID],
            Delivery.init(row:)
        )
        guard let head, try await tenantIfSent(sessionID: sessionID) != nil else { return nil }
        return head
    }

    /// The session's tenant, if its deliveries go out now: its subscriber is not disabled, the session sends launch
    /// events, and (when `lease` names an owner and a time) that owner could lease its deliveries then.
    private func tenantIfSent(sessionID: Int64, leasableBy lease: (owner: String, at: String)? = nil) async throws -> Int64? {
        try await db.fetchOne(
            """
            SELECT w.state, s.tenant_id FROM webhooks w JOIN sessions s ON s.id = w.session_id
            WHERE w.session_id = ? AND s.sends_launch_events = 1\(lease == nil ? "" : " AND \(SQLSessionRepository.deliveriesFree)")
            """,
            lease.map { [sessionID, $0.owner, $0.at] } ?? [sessionID]
        ) { row -> Int64? in
            let state: WebhookSubscription.State = try RowCoding.enumeration(row[0] as String, "state")
            return state == .disabled ? nil : row[1] as Int64
        } ?? nil
    }

}
