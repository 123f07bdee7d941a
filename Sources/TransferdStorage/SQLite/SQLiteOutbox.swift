import Foundation
import GRDB
import TransferdDomain

/// The outbox's hot paths on SQLite, where a statement is a call: short statements by their indexes, one after
/// another, each answer recorded by itself.
struct SQLiteOutbox: OutboxPaths {
    func pendingHeads(
        _ outbox: SQLDeliveryRepository,
        exceptSessions: [Int64],
        leasableBy owner: String,
        at now: Date
    ) async throws -> [DeliveryHead] {
        let (db, busy, lease) = (outbox.db, Set(exceptSessions), (owner, StoredDate.text(now)))
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
            if !busy.contains(session), let sent = try await sending(head, leasableBy: lease, db) { heads.append(sent) }
        }
        return heads.sorted { $0.delivery.nextAttemptAt < $1.delivery.nextAttemptAt }
    }

    /// The session's head with its tenant and endpoint, if its deliveries go out now: its endpoint is not disabled,
    /// the session sends launch events, and that owner could lease its deliveries at that time.
    private func sending(
        _ head: Delivery,
        leasableBy lease: (owner: String, at: String),
        _ db: any SQLConnection
    ) async throws -> DeliveryHead? {
        try await db.fetchOne(
            """
            SELECT s.tenant_id AS head_tenant, w.endpoint_key AS head_endpoint, w.max_deliveries_per_second AS head_rate,
              NULL AS endpoint_columns, ep.*
            FROM webhooks w JOIN sessions s ON s.id = w.session_id LEFT JOIN \(WebhookEndpoint.table) ep ON ep.key = w.endpoint_key
            WHERE w.session_id = ? AND \(SQLDeliveryRepository.endpointEnabled) AND s.sends_launch_events = 1 AND \(SQLSessionRepository.deliveriesFree)
            """,
            [head.sessionId, lease.owner, lease.at]
        ) { row in
            let parts = row.parts(Self.headLayout)
            return try SQLDeliveryRepository.head(head, parts[0], endpoint: parts[1])
        }
    }

    private static let headLayout = JoinLayout(after: ["endpoint_columns"])

    func record(
        _ outbox: SQLDeliveryRepository,
        _ answers: [AnsweredDelivery],
        releasing: [Int64],
        leasedTo owner: String,
        dueBy now: Date
    ) async throws -> [(recorded: Bool, next: DueDelivery?)] {
        let (db, vault) = (outbox.db, outbox.vault)
        let sessions = SQLSessionRepository(db: db, vault: vault)
        var outcomes: [(recorded: Bool, next: DueDelivery?)] = []
        for answer in answers {
            let outcome = try await record(answer, outbox)
            guard let next = outcome.next, next.nextAttemptAt <= now else {
                try await sessions.releaseDeliveries(sessionID: answer.delivery.sessionId, owner: owner)
                outcomes.append((outcome.recorded, nil))
                continue
            }
            // Read here rather than by the sender: one statement in the writer's transaction costs less than a
            // read transaction of its own.
            outcomes.append((outcome.recorded, DueDelivery(next, content: try await outbox.content(of: next))))
        }
        for sessionID in releasing { try await sessions.releaseDeliveries(sessionID: sessionID, owner: owner) }
        return outcomes
    }

    /// Records one answer: its attempt, then what it changed, while the delivery is pending.
    private func record(_ answer: AnsweredDelivery, _ outbox: SQLDeliveryRepository) async throws -> (recorded: Bool, next: Delivery?) {
        let db = outbox.db
        let (attempt, delivery) = (answer.attempt, answer.delivery)
        let columns = attempt.storedColumns()
        try await db.execute(
            "INSERT INTO \(DeliveryAttempt.table) (\(columns.map(\.key).joined(separator: ", "))) VALUES (\(Placeholders.list(columns.count)))",
            columns.map(\.value)
        )
        guard try await outbox.update(delivery, ifStatus: .pending) else { return (false, nil) }
        guard delivery.status == .delivered else { return (true, nil) }
        try await db.execute(
            "UPDATE sessions SET last_acknowledged_sequence = ? WHERE id = ? AND last_acknowledged_sequence < ?",
            [delivery.sequence, delivery.sessionId, delivery.sequence]
        )
        return (true, try await outbox.pendingHead(sessionID: delivery.sessionId))
    }
}
