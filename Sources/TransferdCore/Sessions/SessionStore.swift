import Foundation
import GRDB

/// Reads and creates sessions. Changes of a session's state go through `TaskLifecycle`, which owns its tasks.
struct SessionStore: Sendable {
    let database: AppDatabase
    let webhooks: WebhookStore
    let maximumSessionsPerTenant: Int

    /// What creating a session produced: the session, whether it is new, and a generated webhook secret to show once.
    struct Creation {
        var session: Session
        var created: Bool
        var generatedSecret: WebhookSecret?
    }

    /// Returns the live session with this identifier, or creates it (with its webhook): never two live sessions
    /// with one identifier. A reconnect keeps the session's original configuration, like re-creating a background
    /// NSURLSession.
    func createOrReconnect(
        identifier: String,
        tenantID: Int64,
        configuration: SessionConfiguration,
        webhook: WebhookRequest.Validated?
    ) async throws -> Creation {
        try await database.pool.write { db in
            let live = Column("state") != Session.State.invalidated.rawValue
            if let live = try Session.filter(Column("tenant_id") == tenantID && Column("identifier") == identifier && live).fetchOne(db) {
                return Creation(session: live, created: false)
            }
            let liveSessions = try Session.filter(Column("tenant_id") == tenantID && live).fetchCount(db)
            guard liveSessions < maximumSessionsPerTenant else {
                throw ResourceLimits.exceeded("This tenant has \(liveSessions) live sessions, the most it may have; invalidate one first.")
            }
            var session = Session(identifier: identifier, tenantId: tenantID, configuration: configuration, createdAt: Date())
            try session.insert(db)
            // Read back, so that the session is shown as it is stored (dates at the database's precision).
            session = try Session.fetchOne(db, key: session.rowID) ?? session
            let secret = try webhook.flatMap { try webhooks.set($0, sessionID: session.rowID, db).1 }
            return Creation(session: session, created: true, generatedSecret: secret)
        }
    }

    /// The session an identifier names among the tenant's: the live one, else the most recently invalidated one.
    /// Another tenant's sessions are as absent as sessions that never were.
    func session(identifier: String, tenantID: Int64) async throws -> Session {
        try ClientIdentifier.validate(identifier, field: "identifier")
        let session = try await database.pool.read { db in
            try Session.filter(Column("tenant_id") == tenantID && Column("identifier") == identifier)
                .order(Column("id").desc)
                .fetchOne(db)
        }
        guard let session else { throw Problem.notFound("No session has the identifier `\(identifier)`.") }
        return session
    }

    /// Sessions in creation order, after the row id `cursor`: the tenant's, or every tenant's when `tenantID` is nil.
    func list(after cursor: Int64, limit: Int, tenantID: Int64?) async throws -> [Session] {
        try await database.pool.read { db in
            var filter = Column("id") > cursor
            if let tenantID { filter = filter && Column("tenant_id") == tenantID }
            return try Session.filter(filter).order(Column("id")).limit(limit).fetchAll(db)
        }
    }

    /// What a session's representation needs besides the row: task counts, the webhook and its backlog.
    struct Details: Sendable {
        var tenant = ""
        var taskCounts: [TaskState: Int] = [:]
        var webhook: WebhookSubscription?
        var pendingDeliveries = 0
        /// Bytes the session's tasks keep on disk: contents, reply bodies and partial files.
        var storedBytes: Int64 = 0
    }

    func details(sessionIDs: [Int64]) async throws -> [Int64: Details] {
        try await database.pool.read { db in
            let ids = sessionIDs.sqliteJSONArray
            var details: [Int64: Details] = [:]
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
                details[row["session_id"], default: Details()].taskCounts[state] = row["count"]
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
                details[row["id"], default: Details()].tenant = row["name"]
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
                details[row["session_id"], default: Details()].storedBytes = row["bytes"]
            }
            let webhooks = try WebhookSubscription.fetchAll(
                db,
                sql: "SELECT * FROM webhooks WHERE session_id IN (SELECT value FROM json_each(?))",
                arguments: [ids]
            )
            for webhook in webhooks {
                details[webhook.sessionId, default: Details()].webhook = webhook
            }
            let pending = try Row.fetchAll(
                db,
                sql: """
                    SELECT session_id, COUNT(*) AS count FROM deliveries
                    WHERE session_id IN (SELECT value FROM json_each(?)) AND status = 'pending' GROUP BY session_id
                    """,
                arguments: [ids]
            )
            for row in pending {
                details[row["session_id"], default: Details()].pendingDeliveries = row["count"]
            }
            return details
        }
    }
}
