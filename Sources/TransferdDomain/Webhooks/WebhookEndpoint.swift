import Foundation

/// One tenant's subscriber URL as every session pointing at it shares it: its health, and what last failed. Its key
/// is a keyed hash of the tenant and the URL (the URL itself is sealed, and may carry a password). An endpoint with
/// no row is healthy.
package struct WebhookEndpoint: Sendable, Equatable {
    package var key: String
    package var tenantId: Int64
    package var health: EndpointHealth
    package var lastError: String?
    package var updatedAt: Date

    package init(key: String, tenantId: Int64, health: EndpointHealth = .healthy, lastError: String? = nil, updatedAt: Date) {
        self.key = key
        self.tenantId = tenantId
        self.health = health
        self.lastError = lastError
        self.updatedAt = updatedAt
    }
}
