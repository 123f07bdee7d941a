import GRDB
import TransferdDomain

/// Webhook subscriptions on SQLite, keyed by their session.
struct SQLiteWebhookRepository: WebhookRepository {
    let db: Database

    func find(sessionID: Int64) throws -> WebhookSubscription? {
        try SQLRequest<WebhookSubscription>(sql: "SELECT * FROM webhooks WHERE session_id = ?", arguments: [sessionID], cached: true)
            .fetchOne(db)
    }

    func save(_ subscription: WebhookSubscription) throws {
        try subscription.save(db)
    }

    func setState(_ state: WebhookSubscription.State, sessionID: Int64) throws {
        try db.cachedStatement(sql: "UPDATE webhooks SET state = ? WHERE session_id = ? AND state <> ?")
            .execute(arguments: [state.rawValue, sessionID, state.rawValue])
    }

    func delete(sessionID: Int64) throws -> Bool {
        try WebhookSubscription.deleteOne(db, key: sessionID)
    }
}
