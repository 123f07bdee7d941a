import Foundation

/// API keys and their tenants.
package protocol APIKeyRepository {
    func find(id: String) throws -> APIKey?
    func count() throws -> Int
    func insert(_ key: APIKey) throws
    /// Every key with its tenant's name, oldest first.
    func list() throws -> [APIKey.Listing]
    /// Revokes a live key; false when no live key has that id.
    func revoke(id: String, at: Date) throws -> Bool
    /// The tenant with this name, created when new.
    func tenantID(named name: String, createdAt: Date) throws -> Int64
}
