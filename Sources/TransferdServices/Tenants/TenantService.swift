import TransferdDomain

/// Tenants' quotas and usage: set by the operator (`transferd tenants set`, `transferd keys create`), shown to each
/// tenant (`GET /v1/tenant`, the dashboard) and to the operator (`transferd tenants list`, `/metrics`).
package struct TenantService: Sendable {
    let store: any Store
    /// The quota of a tenant the operator set nothing for.
    package let defaults: TenantQuota

    package init(store: any Store, defaults: TenantQuota) {
        self.store = store
        self.defaults = defaults
    }

    /// A tenant's quota as it is held to it (the operator's figures over the defaults), and what it holds.
    package func standing(id: Int64) async throws -> TenantStanding {
        guard var standing = try await store.read({ try await $0.standingCountingFetches(id: id) }) else {
            throw DomainError.notFound("The tenant of this key is gone.")
        }
        standing.quota = defaults.overridden(by: standing.quota)
        return standing
    }

    /// Every tenant, with the figures the operator set for it (nil: the default) and what it holds.
    package func standings() async throws -> [TenantStanding] {
        try await store.read { try await $0.standingsCountingFetches() }
    }

    /// Changes the figures the operator set for the tenant named `name`; nil when there is no such tenant.
    /// Sets or (nil) removes the operational webhook of the tenant named `name`; false when there is no such tenant.
    package func setOpsWebhook(_ webhook: OpsWebhook?, name: String) async throws -> Bool {
        try await store.write { try await $0.tenants.setOpsWebhook(webhook, name: name) }
    }

    package func changeQuota(name: String, _ change: @escaping @Sendable (inout TenantQuota) -> Void) async throws -> TenantStanding? {
        try await store.write { repositories in
            guard var standing = try await repositories.tenants.standings().first(where: { $0.name == name }) else { return nil }
            change(&standing.quota)
            _ = try await repositories.tenants.setQuota(standing.quota, name: name)
            return standing
        }
    }
}
