import GRDB
import TransferdDomain

/// Webhook subscriptions, keyed by their session.
struct SQLWebhookRepository: WebhookRepository {
    let db: any SQLConnection
    let vault: CredentialVault

    func find(sessionID: Int64) async throws -> WebhookSubscription? {
        try await db.fetchOne(
            "SELECT * FROM webhooks WHERE session_id = ?\(db.rowLock)",
            [sessionID],
            { try WebhookSubscription(row: $0, vault: vault) }
        )
    }

    func save(_ subscription: WebhookSubscription) async throws {
        try await RowStatements.upsert(into: WebhookSubscription.table, try subscription.storedColumns(vault), db)
    }

    func delete(sessionID: Int64) async throws -> Bool {
        try await db.execute("DELETE FROM webhooks WHERE session_id = ?", [sessionID]) > 0
    }
}
