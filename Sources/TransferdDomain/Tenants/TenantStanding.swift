/// A tenant, the quota the operator set for it, and what it holds.
package struct TenantStanding: Sendable, Equatable {
    package var id: Int64
    package var name: String
    /// The figures set for this tenant alone; nil ones are the service's.
    package var quota: TenantQuota
    package var usage: TenantUsage

    package init(id: Int64, name: String, quota: TenantQuota, usage: TenantUsage) {
        self.id = id
        self.name = name
        self.quota = quota
        self.usage = usage
    }
}
