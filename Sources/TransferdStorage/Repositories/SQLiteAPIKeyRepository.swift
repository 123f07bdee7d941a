import Foundation
import GRDB
import TransferdDomain

/// API keys and tenants on SQLite.
struct SQLiteAPIKeyRepository: APIKeyRepository {
    let db: Database

    func find(id: String) throws -> APIKey? {
        try SQLRequest<APIKey>(literal: "SELECT * FROM api_keys WHERE id = \(id)", cached: true).fetchOne(db)
    }

    func count() throws -> Int {
        try APIKey.fetchCount(db)
    }

    func insert(_ key: APIKey) throws {
        try key.insert(db)
    }

    func list() throws -> [APIKey.Listing] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT k.id, k.name, t.name AS tenant, k.admin, k.created_at, k.revoked_at
                FROM api_keys k JOIN tenants t ON t.id = k.tenant_id ORDER BY k.created_at
                """
        ).map { row in
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
        try db.execute(literal: "UPDATE api_keys SET revoked_at = \(now) WHERE id = \(id) AND revoked_at IS NULL")
        return db.changesCount > 0
    }

    func tenantID(named name: String, createdAt: Date) throws -> Int64 {
        if let id = try SQLRequest<Int64>(literal: "SELECT id FROM tenants WHERE name = \(name)").fetchOne(db) { return id }
        try db.execute(literal: "INSERT INTO tenants (name, created_at) VALUES (\(name), \(createdAt))")
        return db.lastInsertedRowID
    }
}
