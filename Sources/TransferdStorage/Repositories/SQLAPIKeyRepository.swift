import Foundation
import GRDB
import TransferdDomain

/// API keys and tenants.
struct SQLAPIKeyRepository: APIKeyRepository {
    let db: any SQLConnection

    func find(id: String) async throws -> APIKey? {
        try await db.fetchOne("SELECT * FROM api_keys WHERE id = ?\(db.rowLock)", [id], APIKey.init(row:))
    }

    func count() async throws -> Int {
        try await db.value("SELECT COUNT(*) FROM api_keys") ?? 0
    }

    func insert(_ key: APIKey) async throws {
        try await RowStatements.insertKeyed(into: APIKey.table, key.storedColumns(), db)
    }

    func list() async throws -> [APIKey.Listing] {
        try await db.fetchAll(
            """
            SELECT k.id, k.name, t.name AS tenant, k.admin, k.created_at, k.revoked_at
            FROM api_keys k JOIN tenants t ON t.id = k.tenant_id ORDER BY k.created_at
            """
        ) { row in
            APIKey.Listing(
                id: row["id"],
                name: row["name"],
                tenant: row["tenant"],
                admin: row["admin"],
                createdAt: row["created_at"],
                revokedAt: row["revoked_at"]
            )
        }
    }

    func revoke(id: String, at now: Date) async throws -> Bool {
        try await db.execute("UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", [StoredDate.text(now), id]) > 0
    }

    func tenantID(named name: String, createdAt: Date) async throws -> Int64 {
        if let id: Int64 = try await db.value("SELECT id FROM tenants WHERE name = ?", [name]) { return id }
        return try await db.insert("INSERT INTO tenants (name, created_at) VALUES (?, ?)", [name, StoredDate.text(createdAt)])
    }
}
