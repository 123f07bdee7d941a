import Foundation

/// API keys and their tenants.
package protocol APIKeyRepository {
    func find(id: String) async throws -> APIKey?
    func count() async throws -> Int
    func insert(_ key: APIKey) async throws
    /// Every key with its tenant's name, oldest first.
    func list() async throws -> [APIKey.Listing]
    /// Revokes a live key; false when no live key has that id.
    func revoke(id: String, at: Date) async throws -> Bool
    /// The tenant with this name, created when new.
    func tenantID(named name: String, createdAt: Date) async throws -> Int64
}
