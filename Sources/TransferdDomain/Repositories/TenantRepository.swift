/// Tenants: the quotas the operator set for them and what they hold.
package protocol TenantRepository {
    /// The tenant with its quota and usage; nil when no tenant has the id.
    func standing(id: Int64) async throws -> TenantStanding?
    /// The tenant with its quota and usage, its row locked for the transaction on PostgreSQL, so that two instances
    /// admitting its stored bytes at once take turns (SQLite's one writer does so already).
    func lockedStanding(id: Int64) async throws -> TenantStanding?
    /// Every tenant with its quota and usage, by name.
    func standings() async throws -> [TenantStanding]
    /// The quotas the operator set, of the tenants that have one.
    func quotas() async throws -> [Int64: TenantQuota]
    /// Where the tenant's events were trimmed to, in the order its stream reads them (``TenantEventCursor/start``:
    /// never).
    func eventsTrimmedThrough(id: Int64) async throws -> TenantEventCursor
    /// The tenant's own operational webhook, if it has one.
    func opsWebhook(tenantID: Int64) async throws -> OpsWebhook?
    /// Sets or (nil) removes the operational webhook of the tenant named `name`; false when no tenant has that name.
    func setOpsWebhook(_ webhook: OpsWebhook?, name: String) async throws -> Bool
    /// Replaces the quota of the tenant named `name`; false when no tenant has that name.
    func setQuota(_ quota: TenantQuota, name: String) async throws -> Bool
}
