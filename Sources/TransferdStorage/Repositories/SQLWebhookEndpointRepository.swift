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

    /// Every subscriber's endpoint once, healthy when it has no row.
    func census() async throws -> [Int64: [WebhookSubscription.State: Int]] {
        var census: [Int64: [WebhookSubscription.State: Int]] = [:]
        try await db.forEachRow(
            """
            SELECT s.tenant_id, ep.state, COUNT(DISTINCT w.endpoint_key) AS endpoints
            FROM webhooks w JOIN sessions s ON s.id = w.session_id LEFT JOIN \(WebhookEndpoint.table) ep ON ep.key = w.endpoint_key
            GROUP BY s.tenant_id, ep.state
            """,
            []
        ) { row in
            census[row["tenant_id"], default: [:]][try WebhookEndpoint.shownState(row["state"]), default: 0] += row["endpoints"]
        }
        return census
    }
}
