/// Tenants' stores, their secrets sealed at rest.
package protocol ObjectStorageRepository {
    /// Writes the store, replacing one of the same tenant and name; answers whether it was new.
    func save(_ storage: ObjectStorage) async throws -> Bool
    func find(tenantID: Int64, name: String) async throws -> ObjectStorage?
    /// The tenant's stores, by name.
    func list(tenantID: Int64) async throws -> [ObjectStorage]
    /// Removes the store; answers whether there was one.
    func delete(tenantID: Int64, name: String) async throws -> Bool
}
