import Foundation
import GRDB
import TransferdDomain

/// Webhook endpoints' rows, keyed by the endpoint's key.
struct SQLWebhookEndpointRepository: WebhookEndpointRepository {
    let db: any SQLConnection

    func find(key: String) async throws -> WebhookEndpoint? {
        try await db.fetchOne("SELECT * FROM \(WebhookEndpoint.table) WHERE key = ?\(db.rowLock)", [key], WebhookEndpoint.init(row:))
    }

    func save(_ endpoint: WebhookEndpoint) async throws {
        try await RowStatements.upsert(into: WebhookEndpoint.table, endpoint.storedColumns(), db)
    }

    func unhealthy(tenantID: Int64) async throws -> [WebhookEndpoint] {
        try await db.fetchAll(
            "SELECT * FROM \(WebhookEndpoint.table) WHERE tenant_id = ? AND state <> 'healthy' ORDER BY key",
            [tenantID],
            WebhookEndpoint.init(row:)
        )
    }
}
