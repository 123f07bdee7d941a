import Foundation
import GRDB

/// API keys and their tenants: issued by the CLI (`transferd keys …`) or at first start, checked on every request.
public struct APIKeyStore: Sendable {
    let database: AppDatabase

    /// A key's public description, as `transferd keys list` shows it.
    public struct Listing: Sendable {
        public let id: String
        public let name: String
        public let tenant: String
        public let admin: Bool
        public let createdAt: Date
        public let revokedAt: Date?
    }

    /// Issues a key for `tenant` (created if new); returns the token, which is never stored.
    func create(name: String, tenant: String, admin: Bool, token: String = APIKey.Token.generate()) throws -> String {
        guard let parsed = APIKey.Token(token) else { throw ValidationFailure("the key must be at least 32 characters") }
        try database.pool.write { db in
            let tenantID = try self.tenantID(named: tenant, db)
            try APIKey(token: parsed, tenantID: tenantID, name: name, admin: admin).insert(db)
        }
        return token
    }

    func list() throws -> [Listing] {
        try database.pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT k.id, k.name, t.name AS tenant, k.admin, k.created_at, k.revoked_at
                    FROM api_keys k JOIN tenants t ON t.id = k.tenant_id ORDER BY k.created_at
                    """
            ).map { row in
                Listing(
                    id: row["id"],
                    name: row["name"],
                    tenant: row["tenant"],
                    admin: row["admin"],
                    createdAt: row["created_at"],
                    revokedAt: row["revoked_at"]
                )
            }
        }
    }

    /// Revokes a key at once; false when no live key has that id.
    func revoke(id: String) throws -> Bool {
        try database.pool.write { db in
            try db.execute(sql: "UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", arguments: [Date(), id])
            return db.changesCount > 0
        }
    }

    /// Makes sure a fresh installation can be reached: `configured` (TRANSFERD_API_KEY) becomes an admin key when it
    /// is not one yet; without it, a first admin key is generated when there is no key at all, and returned.
    func ensureInitialKey(configured: String?) throws -> String? {
        if let configured {
            guard let token = APIKey.Token(configured) else {
                throw ValidationFailure("TRANSFERD_API_KEY must be at least 32 characters")
            }
            let known = try database.pool.read { db in try APIKey.fetchOne(db, key: token.id) }
            if known == nil { _ = try create(name: "TRANSFERD_API_KEY", tenant: "default", admin: true, token: configured) }
            return nil
        }
        let count = try database.pool.read { db in try APIKey.fetchCount(db) }
        return count == 0 ? try create(name: "initial admin", tenant: "default", admin: true) : nil
    }

    /// The principal a bearer token stands for: nil for a missing, malformed, unknown or revoked key.
    func authenticate(_ text: String) async throws -> Result<Principal, AuthenticationFailure> {
        guard let token = APIKey.Token(text) else { return .failure(.invalid) }
        let key = try await database.pool.read { db in try APIKey.fetchOne(db, key: token.id) }
        guard let key, key.matches(token) else { return .failure(.invalid) }
        guard key.revokedAt == nil else { return .failure(.revoked) }
        return .success(Principal(tenantID: key.tenantId, keyID: key.id, admin: key.admin))
    }

    /// Why a request could not be authenticated.
    enum AuthenticationFailure: Error {
        case invalid, revoked
    }

    private func tenantID(named name: String, _ db: Database) throws -> Int64 {
        if let id = try Int64.fetchOne(db, sql: "SELECT id FROM tenants WHERE name = ?", arguments: [name]) { return id }
        try db.execute(sql: "INSERT INTO tenants (name, created_at) VALUES (?, ?)", arguments: [name, Date()])
        return db.lastInsertedRowID
    }
}

/// A refusal from the key store, with a message for the operator.
public struct ValidationFailure: Error, CustomStringConvertible {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
