import Foundation
import GRDB
import TransferdDomain

/// The outbox's deliveries and their attempts on SQLite.
struct SQLiteDeliveryRepository: DeliveryRepository {
    typealias Columns = Delivery.Columns

    let db: Database

    func find(id: Int64) throws -> Delivery? {
        try SQLRequest<Delivery>(sql: "SELECT * FROM deliveries WHERE id = ?", arguments: [id], cached: true).fetchOne(db)
    }

    func find(eventID: Int64) throws -> Delivery? {
        try Delivery.filter(Columns.eventID == eventID).fetchOne(db)
    }

    /// Writes the columns an attempt changes (the others never change), through one cached statement per expected
    /// status. The status is written as a constant: bound, it would make SQLite prepare the statement again whenever
    /// its value changed (a partial index's condition names `status`).
    func update(_ delivery: Delivery, ifStatus expected: Delivery.Status) throws -> Bool {
        try db.cachedStatement(
            sql: """
                UPDATE deliveries SET status = ?, attempt_count = ?, next_attempt_at = ?, last_error = ?, completed_at = ?
                WHERE id = ? AND status = \(expected.sqlConstant)
                """
        ).execute(arguments: [
            delivery.status.rawValue, delivery.attemptCount, StoredDate.text(delivery.nextAttemptAt), delivery.lastError,
            StoredDate.text(delivery.completedAt), delivery.rowID,
        ])
        return db.changesCount > 0
    }

    func list(sessionID: Int64, after cursor: Int64, status: Delivery.Status?, limit: Int) throws -> [(Delivery, [DeliveryAttempt])] {
        var filter = Columns.sessionID == sessionID && Columns.id > cursor
        if let status { filter = filter && Columns.status == status }
        let deliveries = try Delivery.filter(filter).order(Columns.id).limit(limit).fetchAll(db)
        let attempts = try DeliveryAttempt.filter(deliveries.map(\.rowID).contains(DeliveryAttempt.Columns.deliveryID))
            .order(DeliveryAttempt.Columns.id)
            .fetchAll(db)
        let byDelivery = Dictionary(grouping: attempts, by: \.deliveryId)
        return deliveries.map { ($0, byDelivery[$0.rowID] ?? []) }
    }

    func list(sessionID: Int64, status: Delivery.Status) throws -> [Delivery] {
        try Delivery.filter(Columns.sessionID == sessionID && Columns.status == status).order(Columns.id).fetchAll(db)
    }

    func failPending(sessionID: Int64, message: String, at now: Date) throws {
        try db.execute(
            literal: """
                UPDATE deliveries SET status = \(Delivery.Status.failed), completed_at = \(now), last_error = \(message)
                WHERE session_id = \(sessionID) AND status = \(sql: Delivery.Status.pending.sqlConstant)
                """
        )
    }

    func enqueue(_ event: Event) throws {
        _ = try RowStatements.insert(into: Delivery.databaseTableName, Delivery(pending: event).storedColumns(), db)
        guard Self.progressTypes.contains(event.type) else { return }
        // The partial index `deliveries_pending_progress` holds the pending progress; its conditions are written as
        // constants here, as SQLite uses a partial index only for queries that repeat them.
        try db.cachedStatement(
            sql: """
                UPDATE deliveries SET status = \(Delivery.Status.coalesced.sqlConstant), completed_at = ?
                WHERE status = \(Delivery.Status.pending.sqlConstant) AND event_type IN \(Self.progressTypesSQL)
                  AND session_id = ? AND task_identifier = ? AND event_type = ? AND sequence < ?
                  AND sequence > (SELECT MIN(sequence) FROM deliveries WHERE status = \(Delivery.Status.pending.sqlConstant) AND session_id = ?)
                """
        ).execute(arguments: [
            StoredDate.text(event.createdAt), event.sessionId, event.taskIdentifier, event.type, event.sequence, event.sessionId,
        ])
    }

    private static let progressTypes: [EventType] = [.taskProgress, .taskUploadProgress]
    private static let progressTypesSQL = "(" + progressTypes.map(\.sqlConstant).joined(separator: ", ") + ")"

    func pendingHeads(exceptSessions: [Int64]) throws -> [Delivery] {
        let busy = Set(exceptSessions)
        var heads: [Delivery] = []
        var session = Int64.min
        // One seek per session with pending deliveries: its lowest pending sequence is its head.
        while let head = try SQLRequest<Delivery>(
            literal: """
                SELECT * FROM deliveries WHERE status = \(sql: Delivery.Status.pending.sqlConstant) AND session_id > \(session)
                ORDER BY session_id, sequence LIMIT 1
                """,
            cached: true
        ).fetchOne(db) {
            session = head.sessionId
            if !busy.contains(session), try subscriberIsEnabled(sessionID: session) { heads.append(head) }
        }
        return heads.sorted { $0.nextAttemptAt < $1.nextAttemptAt }
    }

    func pendingHead(sessionID: Int64) throws -> Delivery? {
        let head = try SQLRequest<Delivery>(
            literal: """
                SELECT * FROM deliveries WHERE status = \(sql: Delivery.Status.pending.sqlConstant) AND session_id = \(sessionID)
                ORDER BY sequence LIMIT 1
                """,
            cached: true
        ).fetchOne(db)
        guard let head, try subscriberIsEnabled(sessionID: sessionID) else { return nil }
        return head
    }

    private func subscriberIsEnabled(sessionID: Int64) throws -> Bool {
        let state = try SQLRequest<WebhookSubscription.State>(
            literal: "SELECT state FROM webhooks WHERE session_id = \(sessionID)",
            cached: true
        ).fetchOne(db)
        return state.map { $0 != .disabled } ?? false
    }

    func insertAttempt(_ attempt: DeliveryAttempt) throws {
        _ = try RowStatements.insert(into: DeliveryAttempt.databaseTableName, attempt.storedColumns(), db)
    }
}
