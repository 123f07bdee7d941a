import GRDB
import TransferdDomain

/// Webhook subscriptions, keyed by their session.
struct SQLWebhookRepository: WebhookRepository {
    let db: any SQLConnection
    let vault: CredentialVault

    func find(sessionID: Int64) async throws -> WebhookSubscription? {
        try await db.fetchOne(
            "SELECT \(WebhookSubscription.columns) FROM webhooks w \(WebhookSubscription.endpointJoin) WHERE w.session_id = ?\(db.rowLock(of: "w"))",
            [sessionID],
            { try WebhookSubscription(row: $0, vault: vault) }
        )
    }

    /// Gives the subscription its endpoint's key, from its session's tenant and its URL.
    @discardableResult
    func save(_ subscription: WebhookSubscription) async throws -> WebhookSubscription {
        guard let tenant: Int64 = try await db.value("SELECT tenant_id FROM sessions WHERE id = ?", [subscription.sessionId]) else {
            throw StoreError.rowNotFound("sessions \(subscription.sessionId)")
        }
        var keyed = subscription
        keyed.endpointKey = WebhookSubscription.endpointKey(tenantID: tenant, url: subscription.url, vault: vault)
        // The rate limit is the endpoint's: one given sets it for every session of the tenant pointing at the URL, and
        // a subscription without one takes the endpoint's.
        if keyed.maxDeliveriesPerSecond == nil {
            keyed.maxDeliveriesPerSecond = try await db.value(
                "SELECT max_deliveries_per_second FROM webhooks WHERE endpoint_key = ? AND max_deliveries_per_second IS NOT NULL LIMIT 1",
                [keyed.endpointKey]
            )
        } else {
            try await db.execute(
                "UPDATE webhooks SET max_deliveries_per_second = ? WHERE endpoint_key = ? AND session_id <> ?",
                [keyed.maxDeliveriesPerSecond, keyed.endpointKey, keyed.sessionId]
            )
        }
        try await RowStatements.upsert(into: WebhookSubscription.table, try keyed.storedColumns(vault), db)
        return keyed
    }

    func subscribers(endpointKey: String) async throws -> [(sessionID: Int64, identifier: String, url: String)] {
        try await db.fetchAll(
            "SELECT s.id, s.identifier, w.url FROM webhooks w JOIN sessions s ON s.id = w.session_id WHERE w.endpoint_key = ? ORDER BY s.id",
            [endpointKey]
        ) { row in (row[0] as Int64, row[1] as String, try vault.open(text: row[2] as String)) }
    }

    func delete(sessionID: Int64) async throws -> Bool {
        try await db.execute("DELETE FROM webhooks WHERE session_id = ?", [sessionID]) > 0
    }
}
