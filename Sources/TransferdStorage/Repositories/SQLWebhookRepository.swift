import GRDB
import TransferdDomain

/// Webhook subscriptions, keyed by their session.
struct SQLWebhookRepository: WebhookRepository {
    let db: any SQLConnection
    let vault: CredentialVault

    func find(sessionID: Int64) throws -> WebhookSubscription? {
        try db.fetchOne(
            "SELECT * FROM webhooks WHERE session_id = ?\(db.rowLock)",
            [sessionID],
            { try WebhookSubscription(row: $0, vault: vault) }
        )
    }

    func save(_ subscription: WebhookSubscription) throws {
        try RowStatements.upsert(into: WebhookSubscription.table, try subscription.storedColumns(vault), db)
    }

    func delete(sessionID: Int64) throws -> Bool {
        try db.execute("DELETE FROM webhooks WHERE session_id = ?", [sessionID]) > 0
    }
}
