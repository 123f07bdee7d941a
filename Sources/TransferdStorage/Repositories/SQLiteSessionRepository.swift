import Foundation
import GRDB
import TransferdDomain

/// Sessions on SQLite.
struct SQLiteSessionRepository: SessionRepository {
    typealias Columns = Session.Columns

    let db: Database

    func find(id: Int64) throws -> Session? {
        try Session.fetchOne(db, key: id)
    }

    func live(identifier: String, tenantID: Int64) throws -> Session? {
        try Session.filter(Columns.tenantID == tenantID && Columns.identifier == identifier && Columns.state != Session.State.invalidated)
            .fetchOne(db)
    }

    func latest(identifier: String, tenantID: Int64) throws -> Session? {
        try SQLRequest<Session>(
            literal: "SELECT * FROM sessions WHERE tenant_id = \(tenantID) AND identifier = \(identifier) ORDER BY id DESC LIMIT 1",
            cached: true
        ).fetchOne(db)
    }

    func countLive(tenantID: Int64) throws -> Int {
        try Session.filter(Columns.tenantID == tenantID && Columns.state != Session.State.invalidated).fetchCount(db)
    }

    func insert(_ session: Session) throws -> Session {
        var session = session
        try session.insert(db)
        // Read back, so that the session is shown as it is stored (dates at the database's precision).
        return try Session.fetchOne(db, key: session.rowID) ?? session
    }

    func updateState(of session: Session) throws {
        try session.update(db, columns: [Columns.state, Columns.cancelOnInvalidate, Columns.invalidatedAt])
    }

    func list(after cursor: Int64, limit: Int, tenantID: Int64?) throws -> [Session] {
        var filter = Columns.id > cursor
        if let tenantID { filter = filter && Columns.tenantID == tenantID }
        return try Session.filter(filter).order(Columns.id).limit(limit).fetchAll(db)
    }

    func details(sessionIDs: [Int64]) throws -> [Int64: Session.Details] {
        let ids = IDList(sessionIDs).json
        var details: [Int64: Session.Details] = [:]
        let counts = try Row.fetchAll(
            db,
            sql: """
                SELECT session_id, state, COUNT(*) AS count FROM tasks
                WHERE session_id IN (SELECT value FROM json_each(?)) GROUP BY session_id, state
                """,
            arguments: [ids]
        )
        for row in counts {
            guard let state = TaskState(rawValue: row["state"]) else { continue }
            details[row["session_id"], default: Session.Details()].taskCounts[state] = row["count"]
        }
        let tenants = try Row.fetchAll(
            db,
            sql: """
                SELECT s.id, t.name FROM sessions s JOIN tenants t ON t.id = s.tenant_id
                WHERE s.id IN (SELECT value FROM json_each(?))
                """,
            arguments: [ids]
        )
        for row in tenants {
            details[row["id"], default: Session.Details()].tenant = row["name"]
        }
        let stored = try Row.fetchAll(
            db,
            sql: """
                SELECT session_id,
                       SUM(COALESCE(json_extract(file, '$.size'), 0) + COALESCE(json_extract(reply, '$.size'), 0) + partial_bytes) AS bytes
                FROM tasks WHERE session_id IN (SELECT value FROM json_each(?)) GROUP BY session_id
                """,
            arguments: [ids]
        )
        for row in stored {
            details[row["session_id"], default: Session.Details()].storedBytes = row["bytes"]
        }
        let webhooks = try WebhookSubscription.fetchAll(
            db,
            sql: "SELECT * FROM webhooks WHERE session_id IN (SELECT value FROM json_each(?))",
            arguments: [ids]
        )
        for webhook in webhooks {
            details[webhook.sessionId, default: Session.Details()].webhook = webhook
        }
        let pending = try SQLRequest<Row>(
            literal: """
                SELECT session_id, COUNT(*) AS count FROM deliveries
                WHERE session_id IN (SELECT value FROM json_each(\(ids))) AND status = \(Delivery.Status.pending) GROUP BY session_id
                """
        ).fetchAll(db)
        for row in pending {
            details[row["session_id"], default: Session.Details()].pendingDeliveries = row["count"]
        }
        return details
    }

    func nextTaskIdentifier(sessionID: Int64) throws -> Int64 {
        let identifier = try Int64.fetchOne(
            db,
            sql: "UPDATE sessions SET last_task_identifier = last_task_identifier + 1 WHERE id = ? RETURNING last_task_identifier",
            arguments: [sessionID]
        )
        guard let identifier else { throw DatabaseError(resultCode: .SQLITE_NOTFOUND, message: "session \(sessionID) is gone") }
        return identifier
    }

    func acknowledge(sequence: Int64, sessionID: Int64) throws {
        try db.execute(
            sql: "UPDATE sessions SET last_acknowledged_sequence = MAX(last_acknowledged_sequence, ?) WHERE id = ?",
            arguments: [sequence, sessionID]
        )
    }
}
