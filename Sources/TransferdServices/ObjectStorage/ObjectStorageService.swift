import TransferdDomain

/// Tenants' stores: named, replaced, listed, removed (`/v1/storage`), and found by the transfers that use them.
package struct ObjectStorageService: Sendable {
    /// Stores a tenant may name at most.
    package static let limit = 100

    let store: any Store
    let clock: any WallClock

    package init(store: any Store, clock: any WallClock) {
        self.store = store
        self.clock = clock
    }

    /// Writes the store `name` of the tenant, replacing one of that name; answers it and whether it is new.
    package func put(name: String, settings: ObjectStorageSettings, tenantID: Int64) async throws -> (storage: ObjectStorage, created: Bool)
    {
        try ObjectStorage.validateName(name)
        let now = clock.now
        return try await store.write { repositories in
            let existing = try await repositories.objectStorages.find(tenantID: tenantID, name: name)
            if existing == nil, try await repositories.objectStorages.list(tenantID: tenantID).count >= Self.limit {
                throw DomainError.limitExceeded("A tenant names at most \(Self.limit) stores; remove one first.")
            }
            let storage = ObjectStorage(
                tenantID: tenantID,
                name: name,
                settings: settings,
                createdAt: existing?.createdAt ?? now,
                updatedAt: now
            )
            return (storage, try await repositories.objectStorages.save(storage))
        }
    }

    /// The tenant's store `name`; `notFound` when it has none of that name.
    package func find(name: String, tenantID: Int64) async throws -> ObjectStorage {
        guard let storage = try await store.lookup({ try await $0.objectStorages.find(tenantID: tenantID, name: name) }) else {
            throw DomainError.notFound("There is no storage named `\(name)`.")
        }
        return storage
    }

    package func list(tenantID: Int64) async throws -> [ObjectStorage] {
        try await store.lookup { try await $0.objectStorages.list(tenantID: tenantID) }
    }

    /// Removes the store; tasks that name it fail when they next reach for it.
    package func remove(name: String, tenantID: Int64) async throws {
        guard try await store.write({ try await $0.objectStorages.delete(tenantID: tenantID, name: name) }) else {
            throw DomainError.notFound("There is no storage named `\(name)`.")
        }
    }
}
