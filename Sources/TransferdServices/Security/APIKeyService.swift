import Foundation
import TransferdDomain

/// API keys and their tenants: issued by the command line (`transferd keys …`) or at first start, checked on every
/// request (against keys read within the last `APIKeyCache.lifetime`).
package struct APIKeyService: Sendable {
    let store: any Store
    let clock: any WallClock
    package let cache = APIKeyCache()

    package init(store: any Store, clock: any WallClock) {
        self.store = store
        self.clock = clock
    }

    /// Why a request could not be authenticated.
    package enum AuthenticationFailure: Error {
        case invalid, revoked
    }

    /// Issues a key for `tenant` (created if new); returns the token, which is never stored.
    package func create(name: String, tenant: String, admin: Bool, token: String = APIKey.Token.generate()) async throws -> String {
        guard let parsed = APIKey.Token(token) else { throw ValidationFailure("the key must be at least 32 characters") }
        let now = clock.now
        try await store.write { repositories in
            let tenantID = try await repositories.apiKeys.tenantID(named: tenant, createdAt: now)
            try await repositories.apiKeys.insert(APIKey(token: parsed, tenantID: tenantID, name: name, admin: admin, createdAt: now))
        }
        return token
    }

    package func list() async throws -> [APIKey.Listing] {
        try await store.lookup { try await $0.apiKeys.list() }
    }

    /// Revokes a key at once, on every instance that shares the database (`Signal.keyRevoked`); false when no live
    /// key has that id.
    package func revoke(id: String) async throws -> Bool {
        let now = clock.now
        defer { cache.forget(id: id) }
        return try await store.write { repositories in
            repositories.announce(.keyRevoked(id: id))
            return try await repositories.apiKeys.revoke(id: id, at: now)
        }
    }

    /// Makes sure a fresh installation can be reached: `configured` (TRANSFERD_API_KEY) becomes an admin key when it
    /// is not one yet; without it, a first admin key is generated when there is no key at all, and returned.
    package func ensureInitialKey(configured: String?) async throws -> String? {
        if let configured {
            guard let token = APIKey.Token(configured) else {
                throw ValidationFailure("TRANSFERD_API_KEY must be at least 32 characters")
            }
            if try await store.lookup({ try await $0.apiKeys.find(id: token.id) }) == nil {
                _ = try await create(name: "TRANSFERD_API_KEY", tenant: "default", admin: true, token: configured)
            }
            return nil
        }
        let count = try await store.lookup { try await $0.apiKeys.count() }
        return count == 0 ? try await create(name: "initial admin", tenant: "default", admin: true) : nil
    }

    /// The principal a bearer token stands for, or why there is none (a malformed, unknown or revoked key).
    package func authenticate(_ text: String) async throws -> Result<Principal, AuthenticationFailure> {
        guard let token = APIKey.Token(text) else { return .failure(.invalid) }
        guard let key = try await key(id: token.id), key.matches(token) else { return .failure(.invalid) }
        guard key.revokedAt == nil else { return .failure(.revoked) }
        return .success(Principal(tenantID: key.tenantId, keyID: key.id, admin: key.admin))
    }

    /// The principal of the key `id` while it lives (a dashboard session signed in with it); nil once it is revoked.
    package func principal(keyID id: String) async throws -> Principal? {
        guard let key = try await key(id: id), key.revokedAt == nil else { return nil }
        return Principal(tenantID: key.tenantId, keyID: key.id, admin: key.admin)
    }

    /// The key `id`, as read within the cache's lifetime.
    private func key(id: String) async throws -> APIKey? {
        let now = clock.now
        if let key = cache.key(id: id, now: now) { return key }
        let key = try await store.lookup { try await $0.apiKeys.find(id: id) }
        if let key { cache.remember(key, readAt: now) }
        return key
    }
}

/// A refusal from the key service, with a message for the operator.
package struct ValidationFailure: Error, CustomStringConvertible {
    package let description: String

    package init(_ description: String) {
        self.description = description
    }
}
