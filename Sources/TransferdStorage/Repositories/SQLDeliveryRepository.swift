import Foundation
import GRDB
import TransferdDomain

/// The outbox's deliveries and their attempts, in the SQL both databases speak; the hot paths, the sessions' heads and
/// the answers recorded, are each database's own (``OutboxPaths``).
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
            SELECT \(Self.contentColumns)
            FROM events e JOIN sessions s ON s.id = e.session_id JOIN webhooks w ON w.session_id = e.session_id
            \(WebhookSubscription.endpointJoin)
            LEFT JOIN tasks t ON t.session_id = e.session_id AND t.task_identifier = e.task_identifier AND \(Self.carriesTask("e"))
            WHERE e.id = ?
            """,
            [delivery.eventId]
        ) { row in try content(row.parts(Self.contentLayout)) }
    }

    private static let contentLayout = JoinLayout(after: ["webhook_columns", "task_columns"])

    /// Whether the event `alias` is one whose delivery carries its task (``DeliveryContent/taskCarrying``): the task's
    /// row is read only then.
    static func carriesTask(_ alias: String) -> String {
        "\(alias).type IN (\(DeliveryContent.taskCarrying.map(\.sqlConstant).joined(separator: ", ")))"
    }

    /// A delivery's content as columns of `e` (its event), `s` (its session), `w` (the subscriber, with `ep` its
    /// endpoint) and `t` (the task): three parts, after two markers.
    static let contentColumns =
        "s.identifier AS session_identifier, e.*, NULL AS webhook_columns, \(WebhookSubscription.columns), NULL AS task_columns, t.*"

    /// A delivery's content from the three parts of `contentColumns`.
    func content(_ parts: [StoredRow]) throws -> DeliveryContent {
        let task: TransferTask? = (parts[2][TaskColumn.id] as Int64?) == nil ? nil : try TransferTask(row: parts[2], vault: vault)
        return DeliveryContent(
            event: try Event(row: parts[0]),
            sessionIdentifier: parts[0]["session_identifier"],
            webhook: try WebhookSubscription(row: parts[1], vault: vault),
            task: task
        )
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

    static func changes(of delivery: Delivery) -> SQLArguments {
        [
            delivery.status.rawValue, delivery.attemptCount, StoredDate.text(delivery.nextAttemptAt), delivery.lastError,
            StoredDate.text(orNil: delivery.completedAt), delivery.rowID,
        ]
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

    func recoverFailed(_ scope: DeliveryScope, since: Date, _ change: DeliveryChange) async throws -> [Int64] {
        let (sessions, id): (String, Int64) =
            switch scope {
            case .session(let id): ("?", id)
            case .tenant(let id): ("SELECT id FROM sessions WHERE tenant_id = ?", id)
            }
        let update = change.update(
            where: "created_at >= ? AND session_id IN (\(sessions)) AND session_id IN (SELECT session_id FROM webhooks)"
        )
        let arguments = update.arguments + [StoredDate.text(since), id]
        return try await db.fetchAll("\(update.sql) RETURNING session_id", arguments) { $0[0] as Int64 }
    }

    func apply(_ change: DeliveryChange, sessionID: Int64) async throws {
        let update = change.update(where: "session_id = ?")
        try await db.execute(update.sql, update.arguments + [sessionID])
    }

    /// One statement on PostgreSQL for the deliveries, however many, and one for each progress event.
    func enqueue(_ events: [Event]) async throws {
        guard !events.isEmpty else { return }
        _ = try await db.batches.insert(into: Delivery.table, rows: events.map { Delivery(pending: $0).storedColumns() }, db)
        for event in events where Self.progressTypes.contains(event.type) {
            // What superseding does to each delivery is the machine's; which are superseded is the rule above. The
            // partial index `deliveries_pending_progress` holds the pending progress; its conditions are written as
            // constants here, as SQLite uses a partial index only for queries that repeat them.
            let update = DeliveryStateMachine.superseded(at: event.createdAt).update(
                where: """
                    event_type IN \(Self.progressTypesSQL) AND session_id = ? AND task_identifier = ? AND event_type = ? AND sequence < ?
                      AND sequence > (SELECT MIN(sequence) FROM deliveries WHERE status = \(Delivery.Status.pending.sqlConstant) AND session_id = ?)
                    """
            )
            try await db.execute(
                update.sql,
                update.arguments + [event.sessionId, event.taskIdentifier, event.type, event.sequence, event.sessionId]
            )
        }
    }

    private static let progressTypes: [EventType] = [.taskProgress, .taskUploadProgress]
    private static let progressTypesSQL = "(" + progressTypes.map(\.sqlConstant).joined(separator: ", ") + ")"

    func pendingHeads(exceptSessions: [Int64], leasableBy owner: String, at now: Date) async throws -> [DeliveryHead] {
        try await db.outbox.pendingHeads(self, exceptSessions: exceptSessions, leasableBy: owner, at: now)
    }

    func record(
        _ answers: [AnsweredDelivery],
        releasing: [Int64],
        leasedTo owner: String,
        dueBy now: Date
    ) async throws -> [(recorded: Bool, next: DueDelivery?)] {
        try await db.outbox.record(self, answers, releasing: releasing, leasedTo: owner, dueBy: now)
    }

    /// A head's columns: the delivery `d`, its session's tenant, its endpoint's key and rate limit, then after a marker
    /// its endpoint's row (NULL when it has none), as ``head(_:_:endpoint:)`` reads them.
    static let headColumns =
        "d.*, s.tenant_id AS head_tenant, w.endpoint_key AS head_endpoint, w.max_deliveries_per_second AS head_rate, NULL AS endpoint_columns, ep.*"
    /// What a head is read with: `w` its subscriber, `s` its session, `ep` its endpoint.
    static let headJoins = """
        JOIN webhooks w ON w.session_id = d.session_id JOIN sessions s ON s.id = d.session_id
        LEFT JOIN \(WebhookEndpoint.table) ep ON ep.key = w.endpoint_key
        """
    /// Whether the endpoint `ep` of a subscriber sends: it has no row, or is not disabled.
    static let endpointEnabled = "(ep.state IS NULL OR ep.state <> 'disabled')"

    static func head(_ delivery: Delivery, _ row: StoredRow, endpoint: StoredRow) throws -> DeliveryHead {
        DeliveryHead(
            delivery: delivery,
            tenantID: row["head_tenant"],
            endpointKey: row["head_endpoint"],
            endpoint: (endpoint["key"] as String?) == nil ? nil : try WebhookEndpoint(row: endpoint),
            maxDeliveriesPerSecond: row["head_rate"]
        )
    }

    /// Every pending delivery of those sessions that the change makes due earlier, which are their heads and nothing
    /// else: a delivery behind its head was never attempted, and is due from its creation.
    func makeHeadsDue(endpointKey key: String, _ change: DeliveryChange) async throws -> Int {
        let update = change.update(where: "session_id IN (SELECT session_id FROM webhooks WHERE endpoint_key = ?)")
        return try await db.execute(update.sql, update.arguments + [key])
    }

    func oldestPending() async throws -> [Int64: Date] {
        let rows = try await db.fetchAll(
            """
            SELECT s.tenant_id, MIN(d.created_at) FROM deliveries d JOIN sessions s ON s.id = d.session_id
            WHERE d.status = \(Delivery.Status.pending.sqlConstant) GROUP BY s.tenant_id
            """,
            []
        ) { row in (row[0] as Int64, row[1] as Date) }
        return Dictionary(rows) { first, _ in first }
    }

    func countPending() async throws -> Int {
        try await db.value("SELECT COUNT(*) FROM deliveries WHERE status = \(Delivery.Status.pending.sqlConstant)", []) ?? 0
    }

    /// The session's lowest pending delivery, if its deliveries go out now: its endpoint is not disabled and the
    /// session sends launch events. One statement: the conditions are the session's, so they keep or drop every
    /// pending delivery alike.
    func pendingHead(sessionID: Int64) async throws -> Delivery? {
        try await db.fetchOne(
            """
            SELECT d.* FROM deliveries d \(Self.headJoins)
            WHERE d.status = \(Delivery.Status.pending.sqlConstant) AND d.session_id = ? AND \(Self.endpointEnabled)
              AND s.sends_launch_events = 1
            ORDER BY d.sequence LIMIT 1\(db.rowLock(of: "d"))
            """,
            [sessionID],
            Delivery.init(row:)
        )
    }
}
