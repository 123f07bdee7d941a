import Synchronization

/// The quotas tenants are held to: the service's defaults, overridden by what the operator set per tenant. The
/// overrides are read from the database at most once per `lifetime`, so that the engine's hot paths (every claim,
/// every checkpoint) ask it nothing most of the time; a quota set with `transferd tenants set` takes effect within it.
package final class TenantQuotas: Sendable {
    package let defaults: TenantQuota
    package let lifetime: Duration
    private let loaded = Mutex<(overrides: [Int64: TenantQuota], at: ContinuousClock.Instant)?>(nil)

    package init(defaults: TenantQuota, lifetime: Duration = .seconds(5)) {
        self.defaults = defaults
        self.lifetime = lifetime
    }

    /// The quota `tenant` is held to.
    package func quota(of tenant: Int64, _ repositories: any Repositories) async throws -> TenantQuota {
        await defaults.overridden(by: try overrides(repositories)[tenant] ?? TenantQuota())
    }

    /// The workers each tenant the operator set it for holds while another tenant's work waits.
    package func transferShares(_ repositories: any Repositories) async throws -> [Int64: Int] {
        try await overrides(repositories).compactMapValues(\.transfers)
    }

    private func overrides(_ repositories: any Repositories) async throws -> [Int64: TenantQuota] {
        let now = ContinuousClock.now
        if let cached = loaded.withLock({ $0 }), now - cached.at < lifetime { return cached.overrides }
        let overrides = try await repositories.tenants.quotas()
        loaded.withLock { $0 = (overrides, now) }
        return overrides
    }
}

extension TenantQuotas {
    /// Refuses (`DomainError.quotaExceeded`) a request that would take `tenant` past one of its quotas by adding to it
    /// what `requests` says; the quotas and usage are read in the caller's transaction. A request of 0 stored bytes (a
    /// new download, of a size not known yet) is refused once nothing is left.
    package func admit(_ requests: [QuotaBreach.Quota: Int64], tenant: Int64, _ repositories: any Repositories) async throws {
        try admit(requests, standing: try await repositories.tenants.standing(id: tenant))
    }

    /// `admit(_:tenant:_:)` against a standing already read; none (the tenant is gone) admits everything.
    package func admit(_ requests: [QuotaBreach.Quota: Int64], standing: TenantStanding?) throws {
        if let breach = standing?.breach(of: requests, defaults: defaults) { throw DomainError.quotaExceeded(breach) }
    }

    /// Whether `tenant` may be held to a quota of stored bytes: the service's default or its own (as last read).
    package func limitsStorage(of tenant: Int64, _ repositories: any Repositories) async throws -> Bool {
        try await quota(of: tenant, repositories).storedBytes != nil
    }
}

extension TenantQuotas {
    /// ``StorageGrant/decide(held:needed:wanted:limit:used:)`` for the tenant of `standing`, read in the caller's
    /// transaction (none: the tenant is gone, and nothing holds it).
    package func grantStorage(held: Int64, needed: Int64, wanted: Int64, standing: TenantStanding?) -> StorageGrant {
        guard let standing else { return .through(max(held, wanted, needed)) }
        let limit = defaults.overridden(by: standing.quota).storedBytes
        return StorageGrant.decide(held: held, needed: needed, wanted: wanted, limit: limit, used: standing.usage.storedBytes)
    }

    /// The breach of `tenant` when it keeps more than its quota of stored bytes (``StorageGrant/overdrawn(limit:used:)``).
    package func storageOverdrawn(tenant: Int64, _ repositories: any Repositories) async throws -> QuotaBreach? {
        guard let standing = try await repositories.tenants.standing(id: tenant) else { return nil }
        return StorageGrant.overdrawn(limit: defaults.overridden(by: standing.quota).storedBytes, used: standing.usage.storedBytes)
    }
}
