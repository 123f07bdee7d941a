import TransferdDomain

extension Repositories {
    /// The tenant's standing with its fetch schedules counted, which the standing every task creation reads leaves
    /// out; nil when no tenant has the id.
    func standingCountingFetches(id: Int64) async throws -> TenantStanding? {
        guard var standing = try await tenants.standing(id: id) else { return nil }
        standing.usage.fetches = try await fetchSchedules.countByTenant(tenantID: id)[id] ?? 0
        return standing
    }

    /// Every tenant's standing with its fetch schedules counted.
    func standingsCountingFetches() async throws -> [TenantStanding] {
        let fetches = try await fetchSchedules.countByTenant(tenantID: nil)
        return try await tenants.standings().map { standing in
            var standing = standing
            standing.usage.fetches = fetches[standing.id] ?? 0
            return standing
        }
    }
}
