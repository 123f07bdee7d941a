import Foundation
import GRDB
import TransferdDomain

/// Sessions on SQLite.
struct SQLiteSessionRepository: SessionRepository {
    typealias Columns = Session.Columns

    let db: Database

    func find(id: Int64) throws -> Session? {
        try SQLRequest<Session>(sql: "SELECT * FROM sessions WHERE id = ?", arguments: [id], cached: true).fetchOne(db)
    }

    func live(identifier: String, tenantID: Int64) throws -> Session? {
        try Session.filter(Columns.tenantID == tenantID && Columns.identifier == identifier && Columns.state != Session.State.invalidated)
            .fetchOne(db)
    }

    func latest(identifier: String, tenantID: Int64) throws -> Session? {
        try SQLRequest<Session>(
            sql: "SELECT * FROM sessions WHERE tenant_id = ? AND identifier = ? ORDER BY id DESC LIMIT 1",
            arguments: [tenantID, identifier],
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
        return try find(id: session.rowID) ?? session
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
        let rows = try SQLRequest<Row>(
            sql: Self.detailsSQL,
            arguments: [IDList(sessionIDs).json],
            adapter: ScopeAdapter(["webhook": SuffixRowAdapter(fromIndex: Self.detailsColumnsBeforeWebhook)]),
            cached: true
        ).fetchAll(db)
        var details: [Int64: Session.Details] = [:]
        for row in rows {
            var session = Session.Details()
            session.tenant = row["name"]
            session.taskCounts = [
                .suspended: row["tasks_suspended"], .running: row["tasks_running"], .canceling: row["tasks_canceling"],
                .completed: row["tasks_completed"],
            ]
            session.storedBytes = row["stored_bytes"]
            session.pendingDeliveries = row["pending_deliveries"]
            if let webhook = row.scopes["webhook"], webhook["session_id"] != nil {
                session.webhook = try WebhookSubscription(row: webhook)
            }
            details[row["id"]] = session
        }
        return details
    }

    /// Every session's details in one statement (a `GET` of a session reads them on each request): the task counts
    /// and stored bytes are the counters that the triggers of `0010_queue_and_counts.sql` keep, and the webhook's
    /// columns follow the first `detailsColumnsBeforeWebhook`.
    private static let detailsSQL = """
        SELECT s.id, t.name, s.tasks_suspended, s.tasks_running, s.tasks_canceling, s.tasks_completed, s.stored_bytes,
          (SELECT COUNT(*) FROM deliveries d WHERE d.session_id = s.id AND d.status = \(Delivery.Status.pending.sqlConstant))
            AS pending_deliveries,
          w.*
        FROM sessions s JOIN tenants t ON t.id = s.tenant_id LEFT JOIN webhooks w ON w.session_id = s.id
        WHERE s.id IN (SELECT value FROM json_each(?))
        """
    private static let detailsColumnsBeforeWebhook = 8

    func nextTaskIdentifiers(_ count: Int, sessionID: Int64) throws -> ClosedRange<Int64> {
        let last = try next(.lastTaskIdentifier, count: count, sessionID: sessionID)
        return last - Int64(count) + 1...last
    }

    /// The session's numbers handed out in order: its event sequence and its task identifiers.
    enum Numbering: String {
        case lastSequence = "last_sequence"
        case lastTaskIdentifier = "last_task_identifier"
    }

    /// Takes the session's next `count` numbers of `numbering`; returns the last of them.
    func next(_ numbering: Numbering, count: Int = 1, sessionID: Int64) throws -> Int64 {
        precondition(count > 0, "at least one number is taken")
        let column = numbering.rawValue
        let number = try SQLRequest<Int64>(
            sql: "UPDATE sessions SET \(column) = \(column) + ? WHERE id = ? RETURNING \(column)",
            arguments: [count, sessionID],
            cached: true
        ).fetchOne(db)
        guard let number else { throw DatabaseError(resultCode: .SQLITE_NOTFOUND, message: "session \(sessionID) is gone") }
        return number
    }

    func acknowledge(sequence: Int64, sessionID: Int64) throws {
        try db.cachedStatement(sql: "UPDATE sessions SET last_acknowledged_sequence = MAX(last_acknowledged_sequence, ?) WHERE id = ?")
            .execute(arguments: [sequence, sessionID])
    }
}
