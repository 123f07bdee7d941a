import Foundation
import GRDB
import TransferdDomain

/// API keys and tenants.
struct SQLAPIKeyRepository: APIKeyRepository {
    let db: any SQLConnection

    func find(id: String) throws -> APIKey? {
        try db.fetchOne("SELECT * FROM api_keys WHERE id = ?\(db.rowLock)", [id], APIKey.init(row:))
    }

    func count() throws -> Int {
        try db.value("SELECT COUNT(*) FROM api_keys") ?? 0
    }

    func insert(_ key: APIKey) throws {
        try RowStatements.insertKeyed(into: APIKey.table, key.storedColumns(), db)
    }

    func list() throws -> [APIKey.Listing] {
        try db.fetchAll(
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

    func revoke(id: String, at now: Date) throws -> Bool {
        try db.execute("UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", [StoredDate.text(now), id]) > 0
    }

    func tenantID(named name: String, createdAt: Date) throws -> Int64 {
        if let id: Int64 = try db.value("SELECT id FROM tenants WHERE name = ?", [name]) { return id }
        return try db.insert("INSERT INTO tenants (name, created_at) VALUES (?, ?)", [name, StoredDate.text(createdAt)])
    }
}
