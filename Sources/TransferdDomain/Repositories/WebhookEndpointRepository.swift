import Foundation

/// Webhook endpoints' health, a row for each endpoint that has failed at least once.
package protocol WebhookEndpointRepository {
    /// The endpoint, its row locked for the transaction on PostgreSQL; nil when it has no row (healthy).
    func find(key: String) async throws -> WebhookEndpoint?
    /// Inserts or replaces the endpoint's row.
    func save(_ endpoint: WebhookEndpoint) async throws
    /// How many endpoints each tenant's subscribers have, by their state as the API shows it.
    func census() async throws -> [Int64: [WebhookSubscription.State: Int]]
}
