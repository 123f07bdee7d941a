import TransferdDomain

/// Tenants' stores' rows, one per tenant and name.
struct SQLObjectStorageRepository: ObjectStorageRepository {
    let db: any SQLConnection
    let vault: CredentialVault

    func save(_ storage: ObjectStorage) async throws -> Bool {
        let id: Int64? = try await db.fetchOne(
            "SELECT id FROM \(ObjectStorage.table) WHERE tenant_id = ? AND name = ?\(db.rowLock)",
            [storage.tenantID, storage.name]
        ) { row in row["id"] }
        let columns = try storage.storedColumns(vault: vault)
        guard let id else {
            _ = try await RowStatements.insert(into: ObjectStorage.table, columns, db)
            return true
        }
        try await RowStatements.update(ObjectStorage.table, id: id, columns, db)
        return false
    }

    func find(tenantID: Int64, name: String) async throws -> ObjectStorage? {
        try await db.fetchOne("SELECT * FROM \(ObjectStorage.table) WHERE tenant_id = ? AND name = ?", [tenantID, name]) { row in
            try ObjectStorage(row: row, vault: vault)
        }
    }

    func list(tenantID: Int64) async throws -> [ObjectStorage] {
        try await db.fetchAll("SELECT * FROM \(ObjectStorage.table) WHERE tenant_id = ? ORDER BY name", [tenantID]) { row in
            try ObjectStorage(row: row, vault: vault)
        }
    }

    func delete(tenantID: Int64, name: String) async throws -> Bool {
        try await db.execute("DELETE FROM \(ObjectStorage.table) WHERE tenant_id = ? AND name = ?", [tenantID, name]) > 0
    }
}
