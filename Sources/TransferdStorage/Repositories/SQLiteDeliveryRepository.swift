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

    func update(_ delivery: Delivery) throws {
        try delivery.update(db)
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
                WHERE session_id = \(sessionID) AND status = \(Delivery.Status.pending)
                """
        )
    }

    func coalesceSupersededProgress(exceptSessions: [Int64], at now: Date) throws {
        let pending = Delivery.Status.pending
        try db.execute(
            literal: """
                UPDATE deliveries SET status = \(Delivery.Status.coalesced), completed_at = \(now)
                WHERE status = \(pending) AND event_type IN (\(EventType.taskProgress), \(EventType.taskUploadProgress))
                  AND session_id NOT IN (SELECT value FROM json_each(\(IDList(exceptSessions).json)))
                  AND EXISTS (
                      SELECT 1 FROM deliveries later
                      WHERE later.session_id = deliveries.session_id AND later.status = \(pending)
                        AND later.event_type = deliveries.event_type AND later.task_identifier = deliveries.task_identifier
                        AND later.sequence > deliveries.sequence)
                """
        )
    }

    func pendingHeads(exceptSessions: [Int64]) throws -> [Delivery] {
        let busy = Set(exceptSessions)
        var heads: [Delivery] = []
        var session = Int64.min
        // One seek per session with pending deliveries: its lowest pending sequence is its head.
        while let head = try SQLRequest<Delivery>(
            literal: """
                SELECT * FROM deliveries WHERE status = \(Delivery.Status.pending) AND session_id > \(session)
                ORDER BY session_id, sequence LIMIT 1
                """,
            cached: true
        ).fetchOne(db) {
            session = head.sessionId
            guard !busy.contains(session) else { continue }
            let state = try SQLRequest<WebhookSubscription.State>(
                literal: "SELECT state FROM webhooks WHERE session_id = \(session)",
                cached: true
            ).fetchOne(db)
            if let state, state != .disabled { heads.append(head) }
        }
        return heads.sorted { $0.nextAttemptAt < $1.nextAttemptAt }
    }

    func insertAttempt(_ attempt: DeliveryAttempt) throws {
        var attempt = attempt
        try attempt.insert(db)
    }
}
